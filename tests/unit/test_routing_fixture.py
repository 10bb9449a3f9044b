"""The fixed command set the routing corpus assumes, never the machine's PATH.

`shared/corpus/README.md`: a Debian 12 standard install (coreutils, util-linux, procps,
bsdextrautils, …) plus sudo, curl, git, make, python3/python/pip, vim, tmux, rsync, jq, docker,
kubectl, node and npm, and the alias `ll`. htop, tree, rg, ImageMagick, `open`/`see`/`edit` and
zsh's `where` are absent. Bash builtins and keywords are always known to the router.
"""

from __future__ import annotations

from aish.agent.routing import KnownCommands

_DEBIAN_12_STANDARD = """
    arch b2sum base32 base64 basename basenc cat chcon chgrp chmod chown cksum comm cp csplit cut
    date dd df dir dircolors dirname du echo env expand expr factor false fmt fold groups head
    hostid id install join link ln logname ls md5sum mkdir mkfifo mknod mktemp mv nice nl nohup
    nproc numfmt od paste pathchk pinky pr printenv printf ptx pwd readlink realpath rm rmdir
    runcon seq sha1sum sha224sum sha256sum sha384sum sha512sum shred shuf sleep sort split stat
    stdbuf stty sum sync tac tail tee test timeout touch tr true truncate tsort tty uname
    unexpand uniq unlink users vdir wc who whoami yes [

    addpart agetty blkdiscard blkid blockdev chcpu chmem chrt ctrlaltdel delpart dmesg fallocate
    findfs findmnt flock fsck fstrim getopt hardlink ionice ipcmk ipcrm ipcs isosize last lastb
    lsblk lscpu lsipc lslocks lslogins lsmem lsns mcookie mesg mkfs mkswap more mountpoint namei
    nsenter partx pivot_root prlimit rename.ul rev runuser setarch setpriv setsid setterm su
    swaplabel switch_root taskset unshare utmpdump wdctl whereis wipefs zramctl
    mount umount losetup swapon swapoff logger renice script scriptreplay wall

    free kill pgrep pidof pidwait pkill pmap ps pwdx skill slabtop snice sysctl tload top uptime
    vmstat w watch fuser killall pstree

    col colcrt colrm column hexdump hd look ul write

    clear infocmp reset tabs tic toe tput tset

    which run-parts tempfile ischroot savelog add-shell remove-shell
    find xargs grep egrep fgrep rgrep sed awk mawk gawk tar gzip gunzip zcat zgrep zless bzip2
    bunzip2 bzcat xz unxz xzcat cmp diff diff3 sdiff less lesspipe man whatis apropos mandb
    manpath file hostname dnsdomainname domainname ip ss bridge tc ping ping6 traceroute
    dig host nslookup nc netcat telnet ssh scp sftp ssh-add ssh-agent ssh-copy-id ssh-keygen
    ssh-keyscan wget journalctl loginctl networkctl systemctl systemd-analyze systemd-run
    busctl hostnamectl localectl timedatectl apt apt-get apt-cache apt-mark apt-key dpkg
    dpkg-query dpkg-deb update-alternatives lsof login newgrp passwd chage chfn chsh gpasswd
    useradd userdel usermod groupadd groupdel groupmod adduser deluser lsb_release lspci lsusb
    lsmod modprobe insmod rmmod depmod crontab nano vi bash sh dash rbash locale iconv getent
    ldd ldconfig perl gpg openssl reportbug bc dc shutdown reboot poweroff halt udevadm dmidecode
    whiptail nft logrotate

    sudo curl git make python3 python pip pip3 vim vimdiff view tmux rsync jq docker kubectl
    node npm npx
"""

CORPUS_ALIASES = frozenset({"ll"})
ABSENT = frozenset(
    {"htop", "tree", "rg", "convert", "compare", "display", "identify", "open", "see", "edit"}
    | {"where"}
)
CORPUS_KNOWN = KnownCommands(frozenset(_DEBIAN_12_STANDARD.split()) | CORPUS_ALIASES)


def test_fixture_matches_the_corpus_readme() -> None:
    assert "ll" in CORPUS_KNOWN and "kubectl" in CORPUS_KNOWN and "write" in CORPUS_KNOWN
    assert not ABSENT & CORPUS_KNOWN.names
