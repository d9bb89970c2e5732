// Standard output of edgemt-translate, every write and flush checked: a full
// disk, a quota or a failing file system ends the run with a message and a
// non-zero exit instead of losing the output silently. (A reader that goes
// away still ends it by SIGPIPE, exit 141, as for any filter.)
#pragma once

#include <string>
#include <string_view>

namespace edgemt::cli {

class Output {
 public:
  // false from the first failure on; nothing more is written after it.
  bool Write(std::string_view text);
  bool Flush();
  // The last flush and the close of standard output, at the end of a run.
  bool Close();
  bool failed() const { return error_ != 0; }
  // "cannot write the output: No space left on device".
  std::string Error() const;

 private:
  bool Check(bool ok);
  int error_ = 0;
};

}  // namespace edgemt::cli
