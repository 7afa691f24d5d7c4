// Puts this platform's binaries in place of the node launchers in bin/ (a
// copy, from the optional dependency npm installed; nothing is
// downloaded), so that PATH's cairn is the static binary itself and finds
// cairn-full beside it. The launchers do it at their first run: the
// package has no install script, which npm 11.19 and later run only once
// the person allows it (allowScripts). On Windows, or if the copy fails (a
// folder this user may not write), the launchers stay and run the binaries
// where they are. `node install.js` does it at once and says what failed.
"use strict";
const fs = require("fs");
const path = require("path");

const cpus = { x64: "x64", arm64: "arm64" };

// platformPackage is the optional dependency holding this platform's
// binaries.
function platformPackage() {
  const scope = require("./package.json").name.split("/")[0];
  return `${scope}/cairn-${process.platform}-${cpus[process.arch] || process.arch}`;
}

// binary returns the path of this platform's binary name (cairn or
// cairn-full).
function binary(name) {
  const exe = process.platform === "win32" ? ".exe" : "";
  const pkg = platformPackage();
  try {
    return require.resolve(`${pkg}/bin/${name}${exe}`);
  } catch (e) {
    throw new Error(`${pkg} is not installed: npm left out this platform's optional dependency (reinstall without --no-optional / --omit=optional)`);
  }
}

// install copies both binaries over their launchers, each through a file
// of its own renamed into place, so that launchers started at once (two
// hooks) never leave a half-written binary; quiet says nothing of a copy
// that failed, as a launcher must not.
function install(quiet) {
  if (process.platform === "win32") return;
  for (const name of ["cairn", "cairn-full"]) {
    const dest = path.join(__dirname, "bin", name);
    const tmp = `${dest}.${process.pid}.tmp`;
    try {
      fs.copyFileSync(binary(name), tmp);
      fs.chmodSync(tmp, 0o755);
      fs.renameSync(tmp, dest);
    } catch (e) {
      try {
        fs.unlinkSync(tmp);
      } catch (_) {}
      if (!quiet) console.error(`cairn: kept the node launcher for ${name}: ${e.message}`);
    }
  }
}

module.exports = { binary, install };
if (require.main === module) install(false);
