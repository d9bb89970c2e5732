// Command-line options of the test and benchmark scripts: `--name value`.
export function argument(name, fallback) {
  const i = process.argv.indexOf(name);
  if (i < 0) {
    if (fallback === undefined) throw new Error(`${name} is required`);
    return fallback;
  }
  return process.argv[i + 1];
}
