"""Programs that read the project they are started in before they read their own arguments.

`foo --version` and `foo --help` only print, for almost every program: the classifier takes
them as safe without a table entry. Not for these. Each is a launcher that first looks in the
working directory (and its parents) for a file that picks the program it will run, or the
options of the VM it starts, and a cloned repository holds that file:

- rustup's proxies (`cargo`, `rustc`, `rustup` itself …) read `rust-toolchain.toml`, whose
  `path` names the toolchain whose `bin/cargo` runs, even for `cargo --version`;
- `mvn` passes `.mvn/jvm.config` to java (`-XX:OnOutOfMemoryError=cmd`, `-javaagent:`), and
  `sbt` passes `.jvmopts`/`.sbtopts` the same way;
- yarn runs the JavaScript file `.yarnrc.yml`'s `yarnPath` (`.yarnrc`'s `yarn-path`) names;
  pnpm and corepack fetch and run the version `package.json`'s `packageManager` names (a URL
  too), from the registry `.npmrc` names;
- bazelisk downloads the Bazel that `.bazelversion` names from the URL `.bazeliskrc` names;
  go switches to the toolchain `go.mod` names; gradle reads `gradle.properties` (JVM options,
  `org.gradle.java.home`); bundler runs the version `Gemfile.lock` names; composer loads the
  plugins under `vendor/`.

mvn was proven in the oracle's sandbox, rustup by hand (rustup's proxies are not on the
sandbox's PATH); the others follow their documentation.
"""

from __future__ import annotations

__all__ = ["PROJECT_LAUNCHERS"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# rustup and the proxies it installs; JVM build tools whose launcher passes project files to
# java; package managers that pick their own version (or program) from the project.
PROJECT_LAUNCHERS = _words(
    "rustup cargo rustc rustdoc rustfmt cargo-fmt cargo-clippy clippy-driver cargo-miri "
    "rust-analyzer rust-gdb rust-gdbgui rust-lldb rls "
    "mvn mvnDebug sbt gradle "
    "yarn yarnpkg pnpm pnpx corepack bazel bazelisk go bundle bundler composer"
)
