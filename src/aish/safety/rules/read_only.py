"""The read-only allowlist: what is proven not to change anything, option by option.

A command is `safe` only if an entry here vouches for it (and no destructive rule fires, and
its redirections and inner commands are safe too). Everything else is at best `unknown`.
Options that make a reader write (`sort -o`, `less -o`), run programs (`rg --pre`, `fd -x`) or
change state (`date -s`) are denied explicitly. `types.ReadOnly` says how a row matches.
"""

from __future__ import annotations

from aish.safety.rules.types import ReadOnly as RO


def _options(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_UNCONDITIONAL = """
    cat head tail tac rev wc cut paste join comm nl fold fmt pr column col colrm expand unexpand
    tr grep egrep fgrep zgrep zegrep zfgrep rgrep more zmore zcat bzcat xzcat zstdcat
    lzcat od hexdump strings stat du df ls dir vdir realpath readlink basename dirname pwd cd
    pushd popd echo printf true false : test [ seq yes expr sleep wait read id whoami
    groups who w users last uptime uname arch nproc lscpu lsblk lsusb lspci lsmod lsof netstat
    free vmstat iostat mpstat ps pgrep pidof pstree top printenv locale tty getent
    which whereis type whatis apropos help locate md5sum sha1sum sha224sum sha256sum
    sha384sum sha512sum b2sum cksum sum cmp diff jq shellcheck cal ncal factor numfmt
    ping dig nslookup host traceroute tracepath mtr findmnt lsattr getfacl namei
    dpkg-query objdump readelf size uuidgen base32 base64 basenc clear tput bc
    let declare zipinfo
"""

# Git readers stay readers only without options that run other programs or write files.
_GIT_DENY = _options(
    "--config-env* --paginate --exec-path* --output* --ext-diff --upload-pack* --textconv "
    "--filters -O --open-files-in-pager*"
)
_GIT_READERS = (
    "status|log|diff|show|ls-files|ls-tree|grep|whatchanged|blame|annotate|shortlog|describe|"
    "rev-parse|rev-list|cat-file|count-objects|cherry|name-rev|ls-remote|show-ref|show-branch|"
    "for-each-ref|merge-base|diff-tree|diff-files|diff-index|verify-commit|check-ignore|version|help"
)
_BRANCH_WRITES = _options(
    "-d -D --delete -m -M --move -c -C --copy -f --force -u --set-upstream-to* --unset-upstream "
    "--edit-description -t --track* --no-track"
)
_CONFIG_WRITES = _options(
    "--add --unset* --replace-all --rename-section --remove-section -e --edit"
)
_CURL_WRITES = _options(
    "-O --remote-name* -d --data* -X --request* -T --upload-file* -F --form* -K "
    "--config* --json* -c --cookie-jar* -D --dump-header* --trace* --stderr* --libcurl* "
    "--etag-save* --hsts* --alt-svc* -Q --quote* --ssl-sessions*"
)
# wget proves nothing by --spider or -O - while it still logs, posts, runs wgetrc commands
# (`-e`), saves cookies or headers, or lays out and deletes downloaded files.
WGET_WRITES = _options(
    "-o --output-file* -a --append-output* --method* --post* --body* -e --execute* --config* "
    "--save-* -P --directory-prefix* -x --force-directories --delete-after -b --background "
    "-r --recursive -m --mirror -p --page-requisites -k --convert-links --warc-file* "
    "--rejected-log* --use-askpass*"
)
_TAG_WRITES = _options(
    "-a --annotate -s --sign -u --local-user* -f --force -d --delete -m --message* -F --file* "
    "-e --edit --create-reflog"
)
_APT_CONFIG = _options("-o --option* -c --config-file*")
# ip accepts any prefix of its word options (`-ba` is -batch), and each with a second dash as
# well (`--batch`, `--b`): both run the commands of a file. `-b` alone is -batch; `-br` is
# -brief and stays allowed.
_IP_BATCH = ("-b", "-ba*", "-fo*", "--b", "--ba*", "--fo*")
_SYSTEMD_REMOTE = ("-H", "--host*")
_KUBE_WRITES = ("--output-directory*", "--profile-output*", "--log-file*", "--log-dir*")
# A kubeconfig names programs to run for credentials (`exec`, `auth-provider`'s cmd-path):
# the user's own (~/.kube/config, $KUBECONFIG) is theirs, one named on the line may be the
# repository's. Even `config view` runs its exec program (the oracle's sandbox saw it).
# A kuberc (kubectl's preferences: default flags and aliases per command) is the same kind of
# file: named on the line, it may be the repository's.
_KUBE_CONFIG = ("--kubeconfig*", "--kuberc*")
# docker's --config names the directory of its config.json, whose `cliPluginsExtraDirs` puts
# plugin directories first: `docker --config ./d compose ps` runs the repository's
# `d/plugins/docker-compose` (the oracle's sandbox saw it); its contexts name hosts to reach
# over ssh.
_DOCKER_CONFIG = ("--config*",)
_FIND_ACTIONS = _options("-delete -exec -execdir -ok -okdir -fprint -fprint0 -fprintf -fls")
_COMPRESSORS = _options("gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd lzma")
_TO_STDOUT = _options("-c --stdout --to-stdout -l --list -t --test")
_X509_PRINTS = _options(
    "-noout -text -in -inform -subject -issuer -dates -startdate -enddate -serial -fingerprint "
    "-sha1 -sha256 -md5 -hash -subject_hash -issuer_hash -email -purpose -modulus -pubkey "
    "-ocspid -ocsp_uri -nameopt -certopt -ext -checkend -alias"
)
_DPKG_QUERIES = _options(
    "-l --list -L --listfiles -S --search -s --status -p --print-avail --get-selections"
)

# fmt: off
READ_ONLY_RULES: tuple[RO, ...] = (
    RO(tuple(_UNCONDITIONAL.split())),
    # ---- readers with a writing or program-running option
    RO(("sort",), deny=("-o", "--output", "--compress-program*")),
    # tree -R runs itself again with -o 00Tree.html in every directory.
    RO(("tree",), deny=("-o", "-R")),
    RO(("file",), deny=("-C", "--compile")),
    # `+cmd` runs a pager command at start (`+!cmd` a shell, `+|` a pipe, `+v` an editor):
    # only a search or a motion is read-only. A lesskey file can set LESSOPEN.
    RO(("less", "zless", "most"),
       deny=_options("-o -O --log-file* --LOG-FILE* -k --lesskey*"),
       deny_operand=r"^\+(?!\+?([/?&][^\x00-\x1f\x7f]*|[0-9]*[gGFpP%]?)$)"),
    RO(("info",), deny=("-o", "--output*", "--dribble*")),
    # Pagers and browsers they start are programs of the user's choosing.
    RO(("man",), deny=_options(
        "-P --pager* -H --html* -B -T --troff* -Z --ditroff -t -C --config-file*")),
    RO(("bat", "batcat", "ag"), deny=("--pager*", "--paging*", "--generate-config-file"),
       deny_operand=r"^cache$"),
    RO(("diff3",), deny=("--diff-program*",)),
    RO(("dirs",), deny=("-c",)),
    # ack's --output is a Perl expression in older versions; an ackrc can set a pager.
    RO(("ack",), deny=("--pager*", "--output*", "--ackrc*")),
    # A plugin is a shared library loaded into nm.
    RO(("nm",), deny=("--plugin*",)),
    RO(("compgen",), deny=("-C", "-F", "-W")),
    RO(("lastlog",), deny=("-C", "--clear", "-S", "--set")),
    RO(("ss",), deny=("-K", "--kill", "-D", "--diag*")),
    # pidstat -e PROGRAM runs PROGRAM; blkid writes its cache file (-c FILE) as root.
    RO(("pidstat",), deny=("-e",)),
    RO(("blkid",), deny=("-c", "--cache-file*", "-g", "--garbage-collect")),
    RO(("tldr",), deny=("-u", "--update*", "-c", "--clear-cache")),
    RO(("fd", "fdfind"), deny=("-x", "--exec*", "-X", "--exec-batch*")),
    RO(("uniq", "xxd"), max_operands=1),          # a second operand is the output file
    RO(("tee",), max_operands=0),
    RO(("iconv",), deny=("-o", "--output")),
    RO(("rg",), deny=("--pre*", "--hostname-bin*", "-z", "--search-zip")),
    RO(("find",), deny=_FIND_ACTIONS),
    RO(("sed",), deny=("-i", "--in-place*", "-f", "--file*")),
    # gawk writes a profile, a pretty-printed program or a variable dump with -p -o -d.
    RO(("awk", "gawk", "mawk", "nawk"), deny=_options(
        "-f --file* -i --include* -l --load* -W -E --exec* -o --pretty-print* -p --profile* "
        "-d --dump-variables* -D --debug*")),
    RO(("pg_dump", "mysqldump"),
       deny=_options("-f --file* -r --result-file* --delete-master-logs --flush-logs -F "
                     "--dump-slave* --dump-replica* --tab* -T --flush-privileges")),
    # ---- system state: reading it, never setting it
    # An operand that is not a +FORMAT (`date 010100002020`) sets the clock.
    RO(("date",), deny=("-s", "--set*"), deny_operand=r"^[^+]"),
    RO(("hostname",), max_operands=0, deny=("-F", "--file*", "-b", "--boot")),
    # systemd's -H/--host runs ssh to reach another machine (a program the line does not
    # name, and a host the words may compute); -M/--machine stays on this one.
    RO(("timedatectl", "hostnamectl", "loginctl"), max_operands=0, deny=_SYSTEMD_REMOTE),
    RO(("timedatectl", "hostnamectl"), sub=("status|show|list-timezones|timesync-status",),
       deny=_SYSTEMD_REMOTE),
    RO(("loginctl",), sub=("list-*|show-*|session-status|user-status|seat-status",),
       deny=_SYSTEMD_REMOTE),
    RO(("dmesg",), deny=_options("-c -C --clear --read-clear -D -E -n --console*")),
    RO(("journalctl",), deny=_options(
        "--vacuum* --rotate --flush --relinquish-var --smart-relinquish-var --sync "
        "--setup-keys --update-catalog "
        "--cursor-file*")),
    RO(("history",), deny=_options("-c -d -w -a -r -n -s -p"), max_operands=1),
    RO(("crontab",), require=("-l",)),
    RO(("mount",), max_operands=0, deny=("-a", "--all", "-o", "--options*", "--bind", "--move")),
    # Shell settings: only the options that list them (`set -t`, `stty -echo` change them).
    RO(("set",), allow_options=("-o",), max_operands=0, deny=("--",)),
    RO(("set",), sub=("+o",), allow_options=(), max_operands=0),
    RO(("shopt",), allow_options=("-p",)),
    RO(("stty",), allow_options=("-a", "--all", "-g", "--save"), max_operands=0),
    RO(("stty",), sub=("size|speed",), allow_options=(), max_operands=0),
    RO(("alias",), allow_options=("-p",), max_operands=0),
    RO(("umask",), allow_options=("-S", "-p"), max_operands=0),
    # ulimit sets a limit only when given a value: its letters alone print limits.
    RO(("ulimit",), allow_options=_options("-a -H -S -b -c -d -e -f -i -k -l -m -n -p -q -r -s "
                                           "-t -u -v -x -P -R -T"), max_operands=0),
    RO(("export",), allow_options=("-p",), max_operands=0),
    RO(("trap",), allow_options=("-l", "-p"), max_operands=0),
    RO(("env",), max_operands=0, deny=("-i", "-u", "-S", "-C", "--chdir*", "--unset*")),
    RO(("command",), require=("-v", "-V")),
    RO(("fdisk", "parted"), require=("-l", "--list")),
    # sfdisk keeps the last action it is given: only listing actions may appear at all.
    RO(("sfdisk",), require=("-l", "--list"),
       allow_options=_options("-l --list -d --dump -J --json -s --show-size -V --verify -F "
                              "--list-free -q --quiet")),
    RO(("ip",), sub=("*", "show|list|ls|get"), deny=_IP_BATCH),
    RO(("ip",), max_operands=1, deny=_IP_BATCH),
    RO(("ifconfig", "iwconfig"), max_operands=1),
    RO(("iptables", "ip6tables"), require=("-L", "--list", "-S", "--list-rules"),
       deny=("--modprobe*",)),
    RO(("sudo",), require=("-l", "--list", "-V", "--version")),
    RO(("apt-file",), sub=("search|find|list|show",)),
    # ---- compressors only when they write to stdout, list or test
    RO(_COMPRESSORS, require=_TO_STDOUT,
       deny=("-o", "--output*", "--rm", "--output-dir*", "--trace*")),
    # With no file operand they filter stdin to stdout (`gunzip < f.gz`): unless told to
    # read the names of files to work on in place (`--files`, `--filelist`) or recurse.
    RO(_COMPRESSORS, max_operands=0,
       deny=_options("-o --output* --rm --output-dir* --trace* --files* --filelist* -r "
                     "--recursive --train*")),
    RO(("lz4",), require=("-c", "--stdout", "-t", "--test", "--list"), deny=("-o", "--rm")),
    RO(("unzip",), require=("-l", "-v", "-t", "-p", "-Z"), deny=("-T",)),
    RO(("7z", "7za"), sub=("l|t",)),
    # ---- network readers: a plain GET prints to stdout
    # A Unix socket is a local daemon's API (docker.sock …), where a GET can act.
    RO(("curl",), deny=(*_CURL_WRITES, "--unix-socket*", "--abstract-unix-socket*")),
    # (`wget -O - url` is judged by content_checks, with the same list.)
    RO(("wget",), require=("--spider",), deny=WGET_WRITES),
    # ---- git: only readers, without config overrides or external programs
    RO(("git",), sub=(_GIT_READERS,), deny=_GIT_DENY),
    RO(("git",), sub=("branch",), deny=_GIT_DENY + _BRANCH_WRITES, max_operands=0),
    # Not -l: before git 2.20 `git branch -l NAME` created NAME (-l was --create-reflog).
    RO(("git",), sub=("branch",), require=("--list",), deny=_GIT_DENY + _BRANCH_WRITES),
    RO(("git",), sub=("tag",), require=("-l", "--list"), deny=_GIT_DENY),
    RO(("git",), sub=("tag",), max_operands=0, deny=_GIT_DENY + _TAG_WRITES),
    RO(("git",), sub=("remote",), deny=_GIT_DENY, max_operands=0),
    RO(("git",), sub=("remote", "show|get-url"), deny=_GIT_DENY),
    RO(("git",), sub=("stash", "list|show"), deny=_GIT_DENY),
    RO(("git",), sub=("reflog",), deny=_GIT_DENY, max_operands=0),
    RO(("git",), sub=("reflog", "show"), deny=_GIT_DENY),
    RO(("git",), sub=("config",), require=("-l", "--list", "--get*"),
       deny=_GIT_DENY + _CONFIG_WRITES),
    # `git config user.name` gets a value: one `section.key` operand and nothing that writes.
    RO(("git",), sub=("config", "*.*"), max_operands=0, deny=_GIT_DENY + _CONFIG_WRITES),
    RO(("git",), sub=("clean",), require=("-n", "--dry-run"), deny=_GIT_DENY),
    RO(("git",), sub=("worktree|submodule", "list|status"), deny=_GIT_DENY),
    # With one operand it reads the ref; a second sets it, -d deletes it.
    RO(("git",), sub=("symbolic-ref",), max_operands=1,
       deny=(*_GIT_DENY, "-d", "--delete", "-m")),
    RO(("rsync",), require=("-n", "--dry-run"),
       deny=_options("--log-file* --write-batch* --only-write-batch* -e --rsh* --rsync-path* "
                     "-M --remote-option* --daemon")),
    # ---- keys and certificates: printing them, with nothing that writes, signs or loads code
    # (-out, -CAcreateserial, -writerand, -engine, -provider …: none is on the list).
    # A URI for -in (`http://…`, a provider's `scheme:`) fetches or loads instead of reading.
    RO(("openssl",), sub=("x509",), require=("-noout",), allow_options=_X509_PRINTS,
       deny_operand=r"^[A-Za-z][A-Za-z0-9+.-]*:"),
    # -l prints a key's fingerprint; without it ssh-keygen makes, converts or edits keys.
    RO(("ssh-keygen",), require=("-l",), allow_options=_options("-l -f -lf -E -v -lv -lvf")),
    # ---- services, containers, clusters: status and listings
    RO(("systemctl",), max_operands=0, deny=_SYSTEMD_REMOTE),
    RO(("systemctl",), sub=("status|show|cat|list-*|is-active|is-enabled|is-failed|help",),
       deny=_SYSTEMD_REMOTE),
    RO(("service",), sub=("*", "status")),
    RO(("docker", "podman", "nerdctl"),
       sub=("ps|images|logs|inspect|version|info|top|port|diff|history|search|events",),
       deny=_DOCKER_CONFIG),
    RO(("docker", "podman"), sub=("system", "df|info|events"), deny=_DOCKER_CONFIG),
    RO(("docker", "podman"), sub=("stats",), require=("--no-stream",), deny=_DOCKER_CONFIG),
    RO(("docker", "podman"), sub=("container|image|volume|network|context", "ls|list|inspect"),
       deny=_DOCKER_CONFIG),
    RO(("docker", "podman"), sub=("compose", "ps|logs|config|ls|images|top|version"),
       deny=("-o", "--output*", *_DOCKER_CONFIG)),
    RO(("kubectl", "oc"),
       sub=("get|describe|logs|top|explain|version|api-resources|api-versions|cluster-info",),
       deny=(*_KUBE_WRITES, *_KUBE_CONFIG)),
    RO(("kubectl", "oc"), sub=("config", "view|get-contexts|current-context"),
       deny=(*_KUBE_WRITES, *_KUBE_CONFIG)),
    RO(("kubectl", "oc"), sub=("auth", "can-i|whoami"), deny=(*_KUBE_WRITES, *_KUBE_CONFIG)),
    RO(("helm",), sub=("list|ls|status|get|history|show|search|version|template|lint",),
       deny=("--output-dir*", "--post-renderer*", "--dependency-update", *_KUBE_CONFIG)),
    # plan, validate, show and `state show` start the provider plugins the working tree's
    # .terraform holds (and plan runs `external` data sources): code, not reading. output,
    # providers and `state list` set up the backend that `.terraform/terraform.tfstate` (the
    # repository's, if it holds one) records: an S3 backend's `shared_config_files` can name
    # the repository's AWS config, whose `credential_process` runs (the oracle's sandbox saw
    # it), and any backend reaches the host it names. Only `version` reads no working tree.
    RO(("terraform", "tofu"), sub=("version",)),
    # AWS readers by the API's own naming; content_checks reads get-* for an output file.
    RO(("aws",), sub=("s3", "ls")),
    RO(("aws",), sub=("*", "describe-*|list-*|get-*")),
    RO(("aws",), sub=("configure", "list|get")),
    # ---- package managers: queries
    RO(("dpkg",), require=_DPKG_QUERIES,
       deny=_options("-i --install --unpack --configure --set-selections -a")),
    # rpm --pipe CMD runs CMD; --eval/--define macros run %(cmd) and %{lua:…}.
    RO(("rpm",), require=("-q", "--query"),
       deny=_options("--setperms --setugids --restore --rebuilddb --initdb --import -U -F "
                     "--pipe* --eval* -E --define* -D --predefine* --macros* --load* "
                     "--rcfile* --specfile")),
    # An apt option can name a program to run (Acquire::http::Proxy-Auto-Detect) or where
    # to write the package cache.
    RO(("apt",), sub=("list|show|search|policy|depends|rdepends|changelog",),
       deny=(*_APT_CONFIG, "-d", "--download-only")),
    RO(("apt-cache",), sub=("search|show|showpkg|showsrc|policy|depends|rdepends|madison|"
                            "pkgnames|stats|dump|dumpavail|unmet|dotty|xvcg|showauto",),
       deny=_APT_CONFIG + _options("-p --pkg-cache* -s --src-cache*")),
    RO(("pip", "pip3"), sub=("list|show|freeze|check|search|index|inspect|debug",),
       deny=("--log*", "--python*")),
    # No npm, yarn or pnpm command: each reads the project's .npmrc, which names the registry
    # and the credentials to send it (`//host/:_authToken=${GITHUB_TOKEN}` is expanded from
    # the environment), and even `npm ls` asks that registry for npm's latest version with them
    # (the oracle's sandbox saw the token sent). yarn runs the JavaScript its .yarnrc.yml's
    # `yarnPath` names; pnpm switches to the version package.json names.
    RO(("brew",), sub=("list|info|search|outdated|deps|doctor|config",)),
    # ---- shells that only check syntax
    # Only `-n` itself: an interactive shell ignores it (`bash -n -i` runs what it reads), and
    # a later option turns it off again (`+n`, `+o noexec`, zsh's `--exec`, `-o exec`,
    # `-o e_x_e_c`, `+N` …), so any other option, and any `+` word, may run the script.
    RO(("bash", "sh", "zsh", "dash", "ksh"), require=("-n",), allow_options=("-n",),
       deny_operand=r"^\+"),
)
# fmt: on
