//! Target resolution shared by `scan`, `snapshot`, `lock`, `diff` and `review`:
//! config files, snapshot files, a command after `--`, or `--url`, plus the probe options.
