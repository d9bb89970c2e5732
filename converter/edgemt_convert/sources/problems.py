"""Every reason a model directory cannot be converted, collected while its
files are read and reported together in one ConversionError, so that a user
sees every problem at once (importers of the formats people bring use it)."""
import json
import os

from ..errors import ConversionError


class Problems:
    """The problems found so far in one checkpoint directory."""

    def __init__(self, checkpoint_dir, what):
        self.checkpoint_dir = checkpoint_dir
        self.what = what          # "Marian checkpoint", "CTranslate2 model"
        self.items = []

    def add(self, message):
        self.items.append(message)

    def raise_if_any(self):
        if self.items:
            lines = ["%s: this %s cannot be converted (%d problem%s):"
                     % (self.checkpoint_dir, self.what, len(self.items), "" if len(self.items) == 1 else "s")]
            lines += ["  - " + m for m in self.items]
            raise ConversionError("\n".join(lines))


def read_json(path, problems, required=True):
    """The decoded file, or None (a problem unless it is optional and absent)."""
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        if required:
            problems.add("%s: not found" % name)
    except (OSError, ValueError) as e:
        problems.add("%s: cannot read (%s)" % (name, e))
    return None
