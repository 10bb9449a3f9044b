"""The destructive families (SPEC §5): what can delete, overwrite, truncate, kill or
irreversibly change, each with a short reason. Data only; `types` says how a row matches.

Rows err towards matching: a false alarm costs one confirmation, a miss can cost data.
"""

from __future__ import annotations

from aish.safety.rules.types import DestructiveRule as R

_RECURSIVE = ("-R", "--recursive")
_DRY_RUN = ("-n", "--dry-run")
_PKG_REMOVE = "remove|purge|autoremove|erase|uninstall|rm|del|autopurge"
_SYSTEM_DIRS = r"^(/|~/?|/(etc|usr|bin|sbin|lib|lib64|boot|var|home|root|opt)/?)$"
# System files and what lies under system directories: `chmod 777 /etc/shadow` opens the
# password hashes to everyone, `chown` of ~/.ssh locks you out of ssh.
_SYSTEM_FILES = (
    r"^/(etc|boot|usr|bin|sbin|lib|lib64|var/lib|root)/"
    r"|^(~|\$HOME|\$\{HOME\}|/home/[^/]+|/root)/\.ssh(/|$)"
)
# Where writing goes nowhere: /dev/null, the terminal, the standard streams.
_NOWHERE = r"/dev/(null|stdout|stderr|tty|fd/[12])"
# Block devices and kernel interfaces: any write there changes a disk or the running system.
DEVICES = r"^/(dev/(sd|hd|vd|xvd|nvme|mmcblk|md|dm-|loop|mapper/|disk/)|proc/|sys/)"
_CLOUD_DELETE = "rm|rb|mv|delete*|remove*|terminate*|deregister*|purge*|destroy*"
# parted's commands that write the partition table, and every unique abbreviation parted
# accepts for them (`mkl` is mklabel, `t` is toggle); `p` (print), `s` (select or set) are not.
_PARTED_EDITS = "rm mklabel mktable mkpart resizepart name set toggle disk_set disk_toggle rescue"
_PARTED_OTHERS = "align-check help print quit select unit version"


def _parted_edit_operand() -> str:
    edits, others = _PARTED_EDITS.split(), _PARTED_OTHERS.split()
    words = {
        word[:n]
        for word in edits
        for n in range(1, len(word) + 1)
        if word[:n] in edits or not any(o.startswith(word[:n]) for o in others)
    }
    return "^(" + "|".join(sorted(words)) + ")$"


_GIT_FORCE_PUSH = (
    "-f",
    "--force",
    "--force-with-lease*",
    "--force-if-includes",
    "-d",
    "--delete",
    "--mirror",
    "--prune",
)

# fmt: off
DESTRUCTIVE_RULES: tuple[R, ...] = (
    # ---- deleting files
    R(("rm", "srm", "unlink", "wipe", "atrm"), "deletes files"),
    R(("rmdir",), "deletes directories"),
    R(("shred",), "overwrites files beyond recovery"),
    R(("truncate",), "truncates files"),
    R(("find",), "find -delete deletes what it matches", options=("-delete",)),
    R(("find",), "find -fprint/-fls writes its output over a file",
      options=("-fprint", "-fprint0", "-fprintf", "-fls")),
    R(("rsync",), "rsync --delete removes files on the receiving side",
      options=("--delete*", "--remove-source-files"), unless=_DRY_RUN),
    # ---- overwriting files
    R(("mv",), "mv replaces its target and removes the source name",
      unless=("-n", "--no-clobber")),
    R(("cp",), "cp -f overwrites existing files",
      options=("-f", "--force", "--remove-destination")),
    R(("cp",), "copying /dev/null truncates the target", operand=r"^/dev/(null|zero)$",
      first_operand=True),
    R(("install",), "install overwrites its target", unless=("-d", "--directory")),
    R(("ln",), "ln -f replaces an existing file", options=("-f", "--force")),
    R(("dd",), "dd of= writes over a file or device", operand=rf"^of=(?!{_NOWHERE}$)"),
    R(("tee",), "tee writes over its files", operand=rf"^(?!{_NOWHERE}$)",
      unless=("-a", "--append")),
    R(("sponge",), "sponge writes over its file", operand=rf"^(?!{_NOWHERE}$)",
      unless=("-a", "--append")),
    R(("cp", "mv", "install", "ln", "rsync"), "writes to a device or the kernel",
      operand=DEVICES, last_operand=True),
    R(("tee",), "writes to a device or the kernel", operand=DEVICES),
    R(("sed",), "sed -i edits files in place", options=("-i", "--in-place*")),
    R(("perl",), "perl -i edits files in place", options=("-i",)),
    R(("yq",), "yq -i edits files in place", options=("-i", "--inplace")),
    R(("sort",), "sort -o writes over its output file", options=("-o", "--output")),
    R(("ffmpeg",), "ffmpeg -y overwrites its output", options=("-y",)),
    R(("unzip",), "unzip -o overwrites files without asking", options=("-o",)),
    R(("tar",), "tar --overwrite/--delete/--remove-files replaces or deletes files",
      options=("--overwrite", "--recursive-unlink", "--delete", "--unlink-first",
               "--remove-files")),
    R(("crontab",), "crontab -r removes the crontab", options=("-r",)),
    R(("crontab",), "crontab FILE replaces the whole crontab", operand=r"."),
    R(("ssh-keygen",), "ssh-keygen -R removes known_hosts entries", options=("-R",)),
    # ---- permissions
    R(("chmod", "chown", "chgrp"), "recursive permission change", options=_RECURSIVE),
    R(("chmod", "chown", "chgrp"), "changes permissions of a system directory",
      operand=_SYSTEM_DIRS),
    R(("chmod", "chown", "chgrp"), "changes permissions of system files or ~/.ssh",
      operand=_SYSTEM_FILES),
    # A list made at run time (`$(find …)`, backticks, find's `{}`): a bulk change whose old
    # modes are nowhere recorded.
    R(("chmod", "chown", "chgrp"), "changes permissions of files listed at run time",
      operand=r"^(\$\(|`|\{\}$)"),
    R(("setfacl",), "recursive or removing ACL change",
      options=("-R", "--recursive", "-b", "-k")),
    # ---- disks and filesystems
    R(("mkfs", "mke2fs", "mkswap", "blkdiscard"), "formats or wipes a device"),
    R(("wipefs",), "wipes signatures", options=("-a", "--all", "-o", "--offset")),
    R(("fdisk", "sfdisk", "cfdisk", "sgdisk", "gdisk"), "edits partition tables",
      unless=("-l", "--list", "--print", "-p"), unless_operand=r"^(print|p)$"),
    R(("sgdisk",), "sgdisk wipes or rewrites the partition table",
      options=("-Z", "--zap-all", "-z", "--zap", "-o", "--clear", "-d", "--delete", "-n",
               "--new", "-N", "--largest-new", "-g", "--mbrtogpt", "-m", "--gpttombr", "-l",
               "--load-backup")),
    # parted runs the commands given after the device; an editing command changes the table.
    R(("parted",), "edits the partition table", operand=_parted_edit_operand()),
    R(("cryptsetup",), "destroys encrypted volumes",
      sub=("luksFormat|erase|luksErase|luksKillSlot",)),
    R(("lvremove", "vgremove", "pvremove"), "removes LVM volumes"),
    R(("zfs", "zpool"), "destroys ZFS data", sub=("destroy|rollback",)),
    # ---- processes and the system
    R(("kill", "pkill", "killall", "killall5", "skill", "xkill"), "kills processes",
      unless=("-l", "-L", "--list", "--table")),
    R(("fuser",), "fuser -k kills processes", options=("-k", "--kill")),
    R(("systemctl",), "stops or disables services",
      sub=("stop|disable|mask|kill|isolate|poweroff|reboot|halt|emergency|rescue",)),
    R(("service",), "stops a service", operand=r"^(stop|restart|force-reload)$"),
    R(("reboot", "shutdown", "halt", "poweroff"), "shuts the machine down"),
    R(("init", "telinit"), "changes the runlevel", operand=r"^[0156sS]$"),
    R(("history",), "history -c/-d erases shell history", options=("-c", "-d")),
    R(("dmesg",), "dmesg -c/-C clears the kernel log",
      options=("-c", "-C", "--clear", "--read-clear")),
    R(("journalctl",), "journalctl vacuum/rotate deletes logs",
      options=("--vacuum*", "--rotate")),
    R(("userdel", "groupdel", "deluser", "delgroup"), "deletes users or groups"),
    R(("iptables", "ip6tables", "ebtables"), "removes firewall rules",
      options=("-F", "--flush", "-X", "--delete-chain", "-D", "--delete", "-Z")),
    R(("iptables", "ip6tables", "ebtables"), "sets a chain's default policy (DROP cuts off "
      "traffic)", options=("-P", "--policy")),
    R(("nft",), "removes firewall rules", sub=("flush|delete|destroy",)),
    R(("ufw",), "disables or resets the firewall", sub=("disable|reset|delete",)),
    R(("ip",), "deletes or flushes network configuration", operand=r"^(del|delete|flush)$"),
    R(("screen",), "screen -X quit/kill ends sessions", operand=r"^(quit|kill)$"),
    R(("tmux",), "kills tmux sessions", sub=("kill-*",)),
    R(("curl", "http", "https", "xh"), "sends an HTTP DELETE", operand=r"^(?i:delete)$",
      options=("--request=DELETE", "-XDELETE")),
    # ---- version control
    R(("git",), "git reset --hard/--merge/--keep discards changes", sub=("reset",),
      options=("--hard", "--merge", "--keep")),
    R(("git",), "git checkout -- … discards uncommitted changes", sub=("checkout",),
      options=("--", "-f", "--force", "-p", "--patch", "--ours", "--theirs")),
    R(("git",), "git checkout of paths discards uncommitted changes", sub=("checkout",),
      operand=r"^\.$|^:/"),
    R(("git",), "git restore discards uncommitted changes", sub=("restore",),
      unless=("--staged", "-S")),
    R(("git",), "git restore --worktree discards uncommitted changes", sub=("restore",),
      options=("--worktree", "-W")),
    R(("git",), "git switch --discard-changes discards changes", sub=("switch",),
      options=("-f", "--force", "--discard-changes")),
    R(("git",), "git clean deletes untracked files", sub=("clean",),
      options=("-f", "--force"), unless=_DRY_RUN),
    R(("git",), "git push --force/--delete/--mirror rewrites or deletes remote refs",
      sub=("push",), options=_GIT_FORCE_PUSH, unless=_DRY_RUN),
    R(("git",), "git push +ref/:ref forces or deletes a remote ref", sub=("push",),
      operand=r"^[+:]", unless=_DRY_RUN),
    R(("git",), "git branch -D/-d/-M deletes or overwrites branches", sub=("branch",),
      options=("-d", "-D", "--delete", "-M", "-C", "-f", "--force")),
    R(("git",), "git tag -d deletes tags", sub=("tag",),
      options=("-d", "--delete", "-f", "--force")),
    R(("git",), "git stash drop/clear deletes stashes", sub=("stash", "drop|clear")),
    R(("git",), "git rm deletes files", sub=("rm",), unless=("--cached", "-n", "--dry-run")),
    R(("git",), "rewrites history", sub=("filter-branch|filter-repo|rebase",)),
    R(("git",), "git reflog expire/delete drops history", sub=("reflog", "expire|delete")),
    R(("git",), "git gc --prune drops unreachable commits", sub=("gc",), options=("--prune*",)),
    R(("git",), "git prune drops unreachable objects", sub=("prune",), unless=_DRY_RUN),
    R(("git",), "git update-ref -d deletes a ref", sub=("update-ref",), options=("-d",)),
    R(("git",), "git worktree remove deletes a worktree", sub=("worktree", "remove|prune")),
    R(("svn",), "deletes or reverts working copy files", sub=("rm|delete|del|remove|revert",)),
    R(("hg",), "deletes or reverts history or files",
      sub=("strip|purge|clean|revert|rollback|prune",)),
    # ---- packages
    R(("apt", "apt-get", "aptitude", "dnf", "yum", "zypper", "snap", "flatpak", "brew", "port"),
      "removes packages", sub=(_PKG_REMOVE,)),
    R(("apk",), "removes packages", sub=("del",)),
    R(("pacman", "yay", "paru"), "removes packages", options=("-R", "--remove")),
    R(("dpkg",), "removes packages", options=("-r", "--remove", "-P", "--purge")),
    R(("rpm",), "removes packages", options=("-e", "--erase")),
    R(("pip", "pipx", "uv", "conda", "mamba", "gem", "cargo", "go"), "removes packages",
      sub=(_PKG_REMOVE,)),
    R(("uv",), "removes packages", sub=("pip", "uninstall")),
    R(("conda", "mamba"), "removes environments", sub=("env", "remove")),
    R(("npm", "pnpm", "yarn", "bun"), "removes packages",
      sub=("uninstall|remove|rm|un|r|unlink",)),
    # ---- containers, clusters, infrastructure, cloud
    R(("docker", "podman", "nerdctl"), "removes or stops containers, images or volumes",
      sub=("rm|rmi|kill|stop|prune",)),
    R(("docker", "podman", "nerdctl"), "removes containers, images, volumes or networks",
      sub=("container|image|volume|network|system|builder|buildx|stack|service|secret|node|"
           "config|plugin|context|manifest",
           "rm|rmi|prune|remove|kill|stop|reset|down")),
    R(("docker", "podman"), "takes down or removes compose services",
      sub=("compose", "down|rm|kill|stop")),
    R(("docker-compose", "podman-compose"), "takes down or removes services",
      sub=("down|rm|kill|stop",)),
    R(("kubectl", "oc"), "deletes or evicts cluster resources", sub=("delete|drain|replace",)),
    R(("kubectl", "oc"), "rolls a deployment back", sub=("rollout", "undo")),
    R(("kubectl", "oc"), "scales, replaces or patches cluster resources by force",
      options=("--force", "--grace-period*")),
    R(("helm",), "uninstalls releases", sub=("uninstall|delete|del|un|rollback",)),
    R(("terraform", "tofu", "pulumi"), "destroys infrastructure", sub=("destroy",)),
    R(("terraform", "tofu"), "removes resources from the state or overwrites it",
      sub=("state", "rm|push")),
    R(("terraform", "tofu"), "deletes a workspace", sub=("workspace", "delete")),
    R(("terraform", "tofu"), "applies changes without review", sub=("apply",),
      options=("-auto-approve", "-destroy", "--auto-approve")),
    R(("aws",), "deletes cloud resources", sub=("*", _CLOUD_DELETE)),
    R(("aws",), "aws s3 sync --delete removes files", sub=("s3", "sync"),
      options=("--delete",)),
    R(("gsutil", "s3cmd", "rclone", "azcopy"), "deletes or mirrors away remote files",
      operand=r"^(rm|rb|del|delete|deletefile|purge|rmdir|sync|move|remove)$"),
    R(("gcloud", "az", "doctl", "hcloud", "flyctl", "heroku", "vercel"),
      "deletes cloud resources", operand=r"^(delete|destroy|remove|rm|terminate|purge)$"),
    R(("virsh",), "destroys virtual machines",
      sub=("destroy|undefine|vol-delete|pool-delete",)),
    R(("vagrant",), "destroys virtual machines", sub=("destroy",)),
    # ---- databases (SQL given on the command line is read by content_checks)
    R(("dropdb", "dropuser"), "drops a database or role"),
    R(("mysqladmin",), "drops a database", operand=r"^drop$"),
    R(("pg_restore",), "pg_restore --clean drops objects first", options=("-c", "--clean")),
    R(("etcdctl",), "deletes keys", operand=r"^(del|rm|rmdir)$"),
)
# fmt: on
