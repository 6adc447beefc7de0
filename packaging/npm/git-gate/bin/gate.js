#!/usr/bin/env node
// The `gate` command of the git-gate npm package: runs the gate binary of
// the platform package npm installed beside it (@git-gate/<os>-<cpu>, one
// of this package's optionalDependencies, as lefthook ships), with the
// same arguments, stdin, stdout and stderr, and exits as it exits.
"use strict";

const { spawnSync } = require("child_process");

const platform = `${process.platform}-${process.arch}`;
const name = `@git-gate/${platform}`;
const exe = process.platform === "win32" ? "gate.exe" : "gate";

let binary;
try {
  binary = require.resolve(`${name}/bin/${exe}`);
} catch (e) {
  process.stderr.write(
    `gate: error: no gate binary for ${platform}: the package ${name} is not installed\n` +
      "gate: hint: reinstall without --omit=optional (npm installs the binary as an optional dependency), " +
      "or install gate another way (docs/install.md)\n",
  );
  process.exit(2);
}

const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  process.stderr.write(`gate: error: cannot run ${binary}: ${run.error.message}\n`);
  process.exit(2);
}
if (run.signal) {
  // Die of the same signal, as a shell would report it.
  process.kill(process.pid, run.signal);
}
process.exit(run.status === null ? 2 : run.status);
