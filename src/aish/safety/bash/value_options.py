"""Options that take the next word as their value, per program.

Needed to find a program's operands (its subcommand, its files): in `git -C repo status` the
subcommand is `status`, not `repo`; in `crontab -u apache -l` there is no crontab file. Only
options whose value is a separate word matter here (`--opt=value` and `-ovalue` are one word).
"""

from __future__ import annotations


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "git": _set("-C -c --git-dir --work-tree --namespace --config-env --super-prefix"),
    "docker": _set("-H --host --context -c --config -l --log-level --tlscacert --tlscert --tlskey"),
    "podman": _set("--connection -c --url --identity --log-level"),
    "kubectl": _set(
        "-n --namespace --context --cluster --kubeconfig --user -s --server -l --selector "
        "-o --output -c --container --field-selector --as --as-group --token "
        "--certificate-authority --client-certificate --client-key --request-timeout "
        "--tls-server-name --username --password --cache-dir"
    ),
    "helm": _set(
        "-n --namespace --kube-context --kubeconfig -o --output --kube-as-user "
        "--kube-as-group --kube-apiserver --kube-ca-file --kube-token --registry-config "
        "--repository-cache --repository-config"
    ),
    "systemctl": _set("-H --host -M --machine -p --property -t --type --state -n --lines -o"),
    # Not -n/-b: their argument is optional (`journalctl -n --rotate` rotates).
    "journalctl": _set("-u --unit -p --priority -o --output -S -U -t"),
    "crontab": _set("-u"),
    # Not -X: its words are the command screen sends (`-X quit`).
    "screen": _set("-S -p -c -t -T -h -e"),
    "tmux": _set("-L -S -f -c -t -s -n"),
    "aws": _set("--profile --region --output --endpoint-url --query --color --cli-read-timeout"),
    "gcloud": _set("--project --account --configuration --format --zone --region"),
    "az": _set("--subscription -g --resource-group -o --output --query"),
    "psql": _set("-d --dbname -h --host -p --port -U --username -f --file -o --output -v"),
    "mysql": _set("-u --user -h --host -P --port -D --database"),
    "redis-cli": _set("-h -p -a -n -u --user --pass"),
    "terraform": _set("-chdir"),
    "ssh-keygen": _set("-f -t -b -C -N -P -F -R -E -O -Z -I -n -V -z -m"),
    "sed": _set("-e --expression -f --file -l --line-length"),
    **dict.fromkeys(
        ("awk", "gawk", "mawk", "nawk"),
        _set("-F -v -f -e --source -E --exec -i --include -l --load --field-separator --assign"),
    ),
    "grep": _set("-e -f -m -A -B -C --regexp --file --max-count"),
    "ps": _set("-o -p -u -U -g -G -C -t --sort"),
    "sort": _set("-k -t -S -T --key --field-separator --buffer-size"),
    "tar": _set("-C --directory -f --file -T -X --exclude"),
    # Not -X: the classifier reads `-X DELETE` as an operand on purpose.
    "curl": _set(
        "-H --header -u --user -A --user-agent -e --referer -x --proxy -m -d --data --data-raw "
        "--data-binary --data-urlencode -F --form -o --output -T --upload-file"
    ),
    # Not -I: its argument is optional (`date -I -s …` sets the clock).
    "date": _set("-d --date -r --reference"),
    # find's tests and actions that take the next word (`-name '-delete'` deletes nothing).
    "find": _set(
        "-name -iname -path -ipath -regex -iregex -wholename -iwholename -lname -ilname -newer "
        "-anewer -cnewer -user -group -uid -gid -perm -size -type -xtype -mtime -atime -ctime "
        "-mmin -amin -cmin -maxdepth -mindepth -fstype -inum -links -samefile -printf -fprint "
        "-fprint0 -fls -context -regextype -used"
    ),
    "ip": _set("-n -netns -f -family"),
    "npm": _set("--prefix -w --workspace"),
    "pip": _set("-r --requirement -c --constraint -i --index-url"),
}


# Flag options (no value) a subcommand program accepts before its subcommand. Any other
# option there may take a value this table does not know, which would make the wrong word look
# like the subcommand (`kubectl --token get delete pod x` deletes): such a command is not
# proven read-only.
GLOBAL_FLAGS: dict[str, frozenset[str]] = {
    "git": _set(
        "--no-pager --bare --no-replace-objects --literal-pathspecs --glob-pathspecs "
        "--noglob-pathspecs --icase-pathspecs --no-optional-locks --no-advice -P --version "
        "--help"
    ),
    "docker": _set("-D --debug --tls --tlsverify --version --help"),
    "podman": _set("--remote -r --version --help"),
    "kubectl": _set("--insecure-skip-tls-verify --match-server-version --warnings-as-errors"),
    "oc": _set("--insecure-skip-tls-verify --match-server-version"),
    "helm": _set("--debug"),
    "systemctl": _set(
        "--user --system --no-pager --no-legend --all -a --full -l --quiet -q --failed --plain "
        "--no-ask-password --now --show-types --value"
    ),
    "npm": _set("-g --global --json --silent -s --verbose --long -l --parseable -p"),
    "pip": _set("-q --quiet -v --verbose --no-color --disable-pip-version-check --isolated"),
    "terraform": _set("-help -version"),
}


# Short options that take a value, per program: in a bundle, the first such letter ends the
# options and the rest of the word is its value (`git clean -fdx -enode_modules` has no `-n`).
# A program listed with "" has no such letters: every letter of a bundle is an option. For a
# program not listed, a letter inside a bundle never proves a dry run or a listing.
SHORT_VALUES: dict[str, str] = {
    # git's letters differ per subcommand ("git clean": -e takes a value, "git tag": -e edits).
    "git": "mF",
    "git clean": "e",
    "git tag": "mFu",
    "git commit": "mFcCt",
    "git log": "SGnO",
    "git show": "SGO",
    "git diff": "SGO",
    "git checkout": "bB",
    "git switch": "cC",
    "git branch": "u",
    "git push": "o",
    "rsync": "eTfBMT",
    "unzip": "Pdx",
    "zip": "PbnxitTZ",
    "gzip": "S",
    "gunzip": "S",
    "bzip2": "",
    "bunzip2": "",
    "xz": "TFCM",
    "unxz": "TFCM",
    "lzma": "TFCM",
    "zstd": "oDTM",
    "unzstd": "oDTM",
    "lz4": "B",
    "sort": "kotTS",
    "mv": "tS",
    "cp": "tS",
    "ln": "tS",
    "install": "tSmogC",
    "sudo": "ugCDhprtUTR",
    "crontab": "u",
    "iptables": "tAIDRNXPEjgiosdpm",
    "ip6tables": "tAIDRNXPEjgiosdpm",
    "rpm": "D",
    "dpkg": "",
    "fdisk": "bcuLSH",
    "sgdisk": "",
    "history": "d",
    "dmesg": "fFlns",
    "journalctl": "uptSUoDM",
    "date": "dfrs",
    "tar": "fCTXgIFLbHKNV",
    "curl": "odXHuAeTFKmwxzYyr",
    "wget": "OoaePTtwiUQ",
    "ssh-keygen": "fbCtNPFRZEOInVzm",
}

# Programs that spell every option as a single-dash word (`find -name`, `ip -br`): `-b` is an
# option only when written exactly so.
WORD_OPTION_PROGRAMS = frozenset(("find", "ip", "java", "tc", "bridge"))

# Programs whose value-taking letters are listed per subcommand ("git clean").
SUBCOMMAND_SHORT_VALUES = frozenset(k.split()[0] for k in SHORT_VALUES if " " in k)
