"""The rule tables, content checks and wrappers on the cases an adversarial review found: readers
that run programs or write through an option or an operand, scripts whose literals hide code,
wrappers that hand words to a shell, destructive families the tables missed, and common
readers the tables left unproven.

Each row is (command, expected level, a fragment the reasons must contain).
"""

from __future__ import annotations

import time

import pytest

from aish.safety.classifier import classify
from aish.safety.rules.awk_program import awk_code, awk_program_verdict

CASES = [
    # less runs a pager command given as +cmd; a search or a motion only reads
    ("less '+!rm -rf ~' f", "unknown", "runs a command"),
    ("less '+|rm x' f", "unknown", "runs a command"),
    ("less +v f", "unknown", "runs a command"),
    ("less $'+/x\\n!rm -rf ~' f", "unknown", "runs a command"),
    ("less +/DROP migrations/0042_drop_users.sql", "safe", ""),
    ("less +G app.log", "safe", ""),
    ("less +F app.log", "safe", ""),
    ("less -k keys f", "unknown", "-k"),
    # readers that were unconditional but start programs
    ("ack --pager=sh x", "unknown", "--pager"),
    ("ag --pager 'sh -c id' x", "unknown", "--pager"),
    ("ack foo src/", "safe", ""),
    ("ldd /bin/ls", "unknown", "ldd"),
    ("man -C /tmp/x ls", "unknown", "-C"),
    ("man --config-file=/tmp/x ls", "unknown", "--config-file"),
    ("nm --plugin /tmp/x.so a.o", "unknown", "--plugin"),
    ("nm -D /bin/ls", "safe", ""),
    # awk: a quote in a regex or a comment hides no code; -W and @ are not read
    ('awk \'/"/{system("rm -rf ~")}\' f', "unknown", "system()"),
    ('awk \'# "\n{system("rm -rf ~")}\' f', "unknown", "system()"),
    ('awk \'{ if (NR > 1) /x"/ ; system("id") }\' f', "unknown", "system()"),
    ("awk '/[/]\"/ {print}' f", "unknown", "cannot be read"),
    ("awk '{ n = getline /x\"/ }' f", "unknown", "cannot be read"),
    ("awk 'BEGIN{\"rm -rf ~\" |& getline}'", "unknown", "pipes"),
    ("gawk '@include \"inplace\"; {print}' f", "unknown", "@include"),
    ('gawk \'BEGIN{f="system"; @f("id")}\'', "unknown", "indirect call"),
    ("mawk -W exec prog", "unknown", "-W"),
    ("gawk -W include=inplace '{print}' f", "unknown", "-W"),
    ("awk --so='BEGIN{system(\"x\")}' f", "unknown", "system()"),
    ("gawk --incl=inplace '{print}' f", "destructive", "in place"),
    ("gawk -d '{print}' f", "unknown", "-d"),
    ("gawk --profile=prof '{print}' f", "unknown", "--profile"),
    ("awk '{system(\"id\")}' -e 'BEGIN{}' f", "unknown", "system()"),
    ("awk '$1 ~ /\"/ {print $2}' f", "safe", ""),
    ("awk '{print $1/2, \"a>b\"}' f", "safe", ""),
    ("awk '{ x = (a) /2; print x > \"/dev/stderr\" }' f", "safe", ""),
    ("awk -F/ '{print $NF}' f", "safe", ""),
    ("awk '/^\\/dev/ {print $1}' /proc/mounts", "safe", ""),
    ("awk '{ if ($1 > 5) print $2 }' f", "safe", ""),
    ('awk \'{print ($1 > 5) ? "big" : "small"}\' f', "safe", ""),
    ("awk '{print > $1\".txt\"}' f", "destructive", "print >"),
    # sed: abbreviations of --expression are scripts, of --file script files
    ("sed --expr='w /tmp/pwn' data", "unknown", "writes a file"),
    ("sed --e 'w /tmp/pwn' data", "unknown", "writes a file"),
    ("sed --exp p --exp 'w x' f", "unknown", "writes a file"),
    ("sed p -e 'w x' f", "unknown", "writes a file"),
    ("sed -- 'w x' -e p", "unknown", "writes a file"),
    ("sed --fi=s.sed data", "unknown", "script file"),
    ("sed -nf s.sed data", "unknown", "script file"),
    ("sed --exp='p' data", "safe", ""),
    ("sed -e 's/a/b/' file.txt", "safe", ""),
    ("sed -n -e '1p' -e '$p' file.txt", "safe", ""),
    # more readers that run programs or write through an option
    ("pidstat -e rm -rf ~", "unknown", "-e"),
    ("pidstat 1 5", "safe", ""),
    ("blkid -c /etc/x", "unknown", "-c"),
    ("blkid", "safe", ""),
    ("tree -R -H . -L 2", "unknown", "-R"),
    ("ss -D /tmp/x", "unknown", "-D"),
    ("ss -tlnp", "safe", ""),
    ("rsync -n -M--log-file=/x a b", "unknown", "-M"),
    ("rsync -n --only-write-batch=x a b", "unknown", "--only-write-batch"),
    ("rpm -qa --pipe 'sh -c id'", "unknown", "--pipe"),
    ("rpm -q --eval '%(id)' bash", "unknown", "--eval"),
    ("rpm -qa --qf '%{NAME}\\n'", "safe", ""),
    ("apt show -o Acquire::http::Proxy-Auto-Detect=/tmp/e x", "unknown", "-o"),
    ("apt-cache -o Dir::Cache::pkgcache=/etc/x show x", "unknown", "-o"),
    ("apt-cache gencaches", "unknown", "apt-cache"),
    ("apt-cache policy nginx", "safe", ""),
    ("pip list --log /tmp/x", "unknown", "--log"),
    ("tldr --update", "unknown", "--update"),
    ("tldr tar", "safe", ""),
    ("dmesg -kc", "destructive", "clears"),
    ("dmesg --kernel --read-clear", "destructive", "clears"),
    ("dmesg -kn 1", "unknown", "console"),
    ("dmesg -k", "safe", ""),
    ("dmesg -T -l err", "safe", ""),
    # wget and curl: what proves a fetch read-only
    ("wget --spider http://x", "safe", ""),
    ("wget --spider -o log http://x", "unknown", "-o"),
    ("wget --spider -qo log http://x", "unknown", "-o"),
    ("wget --spider --out log http://x", "unknown", "--output-file"),
    ("wget -O - -qo log http://x", "unknown", "-o"),
    ("wget --spider -a log http://x", "unknown", "-a"),
    ("wget --spider --method=DELETE http://x", "unknown", "--method"),
    ("wget --spider --post-data=a http://x", "unknown", "--post"),
    ("wget --spider --body-data=a http://x", "unknown", "--body"),
    ("wget --spider -e robots=off http://x", "unknown", "-e"),
    ("wget --spider --save-cookies c http://x", "unknown", "--save-"),
    ("wget --spider -P /tmp http://x", "unknown", "-P"),
    ("wget --spider -x http://x", "unknown", "-x"),
    ("wget --spider --delete-after http://x", "unknown", "--delete-after"),
    ("wget --spider -O out http://x", "destructive", "wget -O"),
    ("wget -O /dev/null http://x", "safe", ""),
    ("wget -qO- https://x", "safe", ""),
    ("wget -qO out https://x", "destructive", "wget -O"),
    ("wget --output-document out https://x", "destructive", "wget -O"),
    ("wget -O - -o log https://x", "unknown", "-o"),
    ("wget -O - --post-data=x https://x", "unknown", "--post"),
    ("curl -Q 'DELE f' ftp://x", "unknown", "-Q"),
    ("curl --quote 'DELE f' ftp://x", "unknown", "--quote"),
    ("curl -so ~/.bashrc https://x", "destructive", "curl -o"),
    ("curl -sSLo out https://x", "destructive", "curl -o"),
    ("curl --out x https://x", "destructive", "curl -o"),
    ("curl -so/dev/null https://x", "safe", ""),
    ("curl -so - https://x", "safe", ""),
    ("curl -s -w '%output{/tmp/x}hi' https://x", "destructive", "%output"),
    ("curl -s -w @fmt https://x", "unknown", "-w"),
    ("curl -s -o /dev/null -w '%{http_code}' https://x", "safe", ""),
    ("curl gopher://127.0.0.1:6379/_FLUSHALL", "unknown", "raw commands"),
    ("info --dribble=f ls", "unknown", "--dribble"),
    ("journalctl --cursor-file=f", "unknown", "--cursor-file"),
    # shell settings: safe only when they list
    ("set -t", "unknown", "-t"),
    ("set -k", "unknown", "-k"),
    ("set -e", "unknown", "-e"),
    ("set -o vi", "unknown", "set"),
    ("set --", "unknown", "--"),
    # …but a bare `set` lists every variable's value, the marker nonce of aish's shell among
    # them, and so do `declare`/`typeset` without a name (a line that reads the nonce can forge
    # what aish's shell reports); narrower listings hold no nonce
    ("set", "unknown", "set lists every variable"),
    ("command set | grep PATH", "unknown", "lists every variable"),
    ("'set'", "unknown", "lists every variable"),
    ("declare -p", "unknown", "declare -p lists every variable"),
    ("builtin typeset", "unknown", "typeset lists every variable"),
    ("declare -x", "safe", ""),
    ("declare -F", "safe", ""),
    ("echo $PS1", "unknown", "reads PS1"),
    ('printf %s "${PROMPT}"', "unknown", "reads PROMPT"),
    ("echo $PS1X", "safe", ""),
    ("set -o", "safe", ""),
    ("set +o", "safe", ""),
    ("shopt -s extglob", "unknown", "-s"),
    ("shopt", "safe", ""),
    ("shopt -p", "safe", ""),
    ("shopt globstar", "safe", ""),
    ("stty -echo", "unknown", "-echo"),
    ("stty raw", "unknown", "stty"),
    ("stty -F /dev/ttyS0 9600", "unknown", "stty"),
    ("stty", "safe", ""),
    ("stty -a", "safe", ""),
    ("stty -g", "safe", ""),
    ("stty size", "safe", ""),
    ("stty speed 9600", "unknown", "stty"),
    ("alias ll='ls -l'", "unknown", "alias"),
    ("alias", "safe", ""),
    ("alias -p", "safe", ""),
    ("umask 077", "unknown", "umask"),
    ("umask", "safe", ""),
    ("umask -S", "safe", ""),
    ("ulimit -n 10", "unknown", "operands"),
    ("ulimit -c unlimited", "unknown", "ulimit"),
    ("ulimit -a", "safe", ""),
    ("ulimit -n", "safe", ""),
    ("ulimit -Hn 4096", "unknown", "ulimit"),
    ("export -p", "safe", ""),
    ("trap -l", "safe", ""),
    # permissions of system files
    ("chmod 777 /etc/shadow", "destructive", "system files"),
    ("chown root /usr/bin/sudo", "destructive", "system files"),
    ("chmod 600 ~/.ssh/id_rsa", "destructive", "~/.ssh"),
    ("chown nobody ~/.ssh", "destructive", "~/.ssh"),
    ("chmod 644 /var/lib/dpkg/status", "destructive", "system files"),
    ("chmod 644 ./file", "unknown", "chmod"),
    ("chmod +x scripts/run.sh", "unknown", "chmod"),
    # firewall policy, partition tables, terraform state
    ("iptables -P INPUT DROP", "destructive", "default policy"),
    ("iptables --policy INPUT DROP", "destructive", "default policy"),
    ("iptables -L -n", "safe", ""),
    ("parted /dev/sda rm 1 print", "destructive", "partition table"),
    ("parted -s /dev/sda mklabel gpt", "destructive", "partition table"),
    ("parted /dev/sda mkl gpt", "destructive", "partition table"),
    ("parted /dev/sda t 1 boot", "destructive", "partition table"),
    ("parted /dev/sda unit s print", "unknown", "parted"),
    ("parted /dev/sda", "unknown", "parted"),
    ("parted -l", "safe", ""),
    ("fdisk /dev/sda", "destructive", "partition tables"),
    ("sfdisk --delete /dev/sda 1", "destructive", "partition tables"),
    ("sgdisk -p -Z /dev/sda", "destructive", "sgdisk"),
    ("sgdisk -p /dev/sda", "unknown", "sgdisk"),
    ("terraform state rm aws_instance.x", "destructive", "state"),
    ("terraform state push old.tfstate", "destructive", "state"),
    ("terraform workspace delete staging", "destructive", "workspace"),
    ("terraform state list", "unknown", "terraform"),
    # git push dry runs, cp to /dev/null
    ("git push --dry-run --force", "unknown", "git"),
    ("git push -n -f origin main", "unknown", "git"),
    ("git push -fn origin main", "unknown", "git"),
    ("git push --force origin main", "destructive", "git push --force"),
    ("git push --dry-run origin :old", "unknown", "git"),
    ("cp a /dev/null", "unknown", "cp"),
    ("cp /dev/null a", "destructive", "truncates"),
    ("kill -0 1234", "destructive", "kills"),
    # common readers
    ("ifconfig -a", "safe", ""),
    ("ifconfig eth0", "safe", ""),
    ("ifconfig eth0 down", "unknown", "ifconfig"),
    ("git branch --list 'feat*'", "safe", ""),
    ("git branch -l 'feat*'", "unknown", "git"),
    ("git branch --list -D old", "destructive", "branch"),
    ("git branch --list --set-upstream-to=o/x x", "unknown", "--set-upstream-to"),
    ("git tag", "safe", ""),
    ("git tag -n", "safe", ""),
    ("git tag v1", "unknown", "git"),
    ("git tag -a -m x", "unknown", "git"),
    ("git config user.name", "safe", ""),
    ("git config --global user.email", "safe", ""),
    ("git config user.name Bob", "unknown", "git"),
    ("git config --unset user.name", "unknown", "--unset"),
    ("git config --edit", "unknown", "--edit"),
    ("git config edit", "unknown", "git"),
    ("git config unset user.name", "unknown", "git"),
    ("aws s3 ls", "safe", ""),
    ("aws s3 ls s3://bucket --recursive", "safe", ""),
    ("aws ec2 describe-instances --instance-ids i-1 i-2", "safe", ""),
    ("aws iam list-users", "safe", ""),
    ("aws --profile prod sts get-caller-identity", "safe", ""),
    ("aws ssm get-parameter --name x --with-decryption", "safe", ""),
    ("aws s3api get-object --bucket b --key k out", "unknown", "to a file"),
    ("aws s3api get-object out --bucket b --key k", "unknown", "to a file"),
    ("aws s3api get-object --bucket b --key k --no-sign-request out", "unknown", "to a file"),
    ("aws ec2 terminate-instances --instance-ids i-1", "destructive", "deletes cloud"),
    ("aws s3 cp a s3://b/a", "unknown", "aws"),
    # wrappers: env's getopt bundles, jobs -x, sudo -s/-i, flock -c
    ("env -vS'rm -rf ~'", "destructive", "via env"),
    ("env -iS'rm -rf ~'", "destructive", "via env"),
    ("env -i -S 'rm -rf ~'", "destructive", "via env"),
    ("env --split-string='rm -rf ~'", "destructive", "via env"),
    ("env --split='rm -rf ~'", "destructive", "via env"),
    ("env --sp 'rm -rf ~'", "destructive", "via env"),
    ("env -uS rm x", "destructive", "via env"),
    ("env --uns HOME rm x", "destructive", "via env"),
    ("env - rm x", "destructive", "via env"),
    ("env", "safe", ""),
    ("env -0", "safe", ""),
    ("jobs -x rm -rf ~", "destructive", "via jobs"),
    ("jobs -x kill %1", "destructive", "kills"),
    ("jobs", "safe", ""),
    ("jobs -l", "safe", ""),
    ("jobs %1", "safe", ""),
    ("sudo -s 'rm -rf ~'", "destructive", "via sudo"),
    ("sudo -i 'rm -rf ~'", "destructive", "via sudo"),
    ("sudo --shell 'rm -rf ~'", "destructive", "via sudo"),
    ("sudo -su root 'rm -rf ~'", "destructive", "via sudo"),
    ("sudo -s", "unknown", "root shell"),
    ("sudo -i ls", "safe", ""),
    ("sudo -u postgres psql -c 'select 1'", "safe", ""),
    ("flock /tmp/l -c 'rm -rf ~'", "destructive", "via flock"),
    ("flock -c 'rm -rf ~' /tmp/l", "destructive", "via flock"),
    ("flock -xc 'rm -rf ~' /tmp/l", "destructive", "via flock"),
    ("flock --command='rm -rf ~' /tmp/l", "destructive", "via flock"),
    ("flock /tmp/l --command 'rm -rf ~'", "destructive", "via flock"),
    ("flock /tmp/l rm -rf ~", "destructive", "via flock"),
    ("flock -w 5 /tmp/l ls", "unknown", "lock file"),
    ("flock /tmp/l -c ls", "unknown", "lock file"),
]


@pytest.mark.parametrize(("command", "level", "reason"), CASES)
def test_case(command: str, level: str, reason: str) -> None:
    verdict = classify(command)
    assert verdict.level == level, verdict.reasons
    assert reason in "; ".join(verdict.reasons)


def test_awk_literals_are_blanked_and_comments_dropped() -> None:
    assert awk_code('/"/ { print "a > b" > "/dev/stderr" } # "x') == (
        '// { print "" > "/dev/stderr" } '
    )
    assert awk_code("{ print a / 2 / 3 }") == "{ print a / 2 / 3 }"
    assert awk_code("{ if (x) /re/ }") == "{ if (x) // }"
    assert awk_code("$1 ~ /[[:alpha:]]+/") == "$1 ~ //"
    assert awk_code('{ print "unterminated }') is None


def test_deeply_nested_awk_parentheses_are_read_in_linear_time() -> None:
    program = "{ print " + "(" * 30000 + "1" + ")" * 30000 + ' > "/dev/null" }'
    started = time.perf_counter()
    verdict = awk_program_verdict(program)
    # Not a speed claim: the reading is linear. It takes about 0.12 s (a tenth of that for
    # 3,000 parentheses); quadratic, 30,000 would be ~10^9 steps of Python, minutes. 2.5 s is
    # generous on a busy machine and still tells them apart.
    assert time.perf_counter() - started < 2.5
    assert verdict is None
    assert awk_program_verdict("{ print (" + "(1)" * 30000 + ' > "f" }') is not None
