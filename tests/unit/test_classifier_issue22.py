"""Verdict quality (issue 22): writes hidden in interpreter one-liners whose literal code is
visible, `ex`/`vim` scripts that write, GNU `gsed -i`, `chmod` over a list made at run time,
terminal multiplexers running commands — destructive where the code is literal, unknown where
it is not; and readers that were `unknown` though provably read-only, safe only in spellings
that cannot write, sign, load code or run a command.

Each row is (command, expected level, a fragment the reasons must contain). The `safe` rows
also run in the differential oracle (tests/oracle: bubblewrap + strace).
"""

from __future__ import annotations

import pytest

from aish.safety.classifier import classify

CASES = [
    # interpreter one-liners: literal calls that delete or write over files
    ('perl -e \'open(OUT, ">f"); print OUT "x"\'', "destructive", "opens a file for writing"),
    ("perl -e 'unlink \"f\"'", "destructive", "calls unlink"),
    ("perl -le 'unlink glob \"*.log\"'", "destructive", "calls unlink"),
    ("perl -e 'print \"unlink\"'", "unknown", "inline code"),  # a name in a string is data
    ("perl -ne 'print if /x/' f", "unknown", "inline code"),
    ("python3 -c 'import os; os.remove(\"f\")'", "destructive", "os.remove"),
    ("python -c \"import shutil; shutil.rmtree('build')\"", "destructive", "shutil.rmtree"),
    ('python -c \'open("x", "w").write("y")\'', "destructive", "opens a file for writing"),
    ("python -c 'print(open(\"x\").read())'", "unknown", "inline code"),
    ("python -c 'from pathlib import Path; Path(\"x\").unlink()'", "destructive", ".unlink"),
    ("ruby -e 'File.delete(\"x\")'", "destructive", "File.delete"),
    ('node -e \'require("fs").rmSync("d", {recursive: true})\'', "destructive", ".rmSync"),
    ("php -r 'unlink(\"x\");'", "destructive", "unlink"),
    # commands handed to a shell: judged as commands; computed ones stay unknown
    ("awk '{system(\"rm -f \" $1)}' list", "destructive", "rm: deletes files (via awk code)"),
    ("awk '{system($0)}' list", "unknown", "system()"),
    ("awk '{system(\"echo \" $1)}' list", "unknown", "value runs as code"),
    ("perl -e 'system(\"rm -rf $dir\")'", "destructive", "rm: deletes files (via perl code)"),
    ("perl -e 'print qx{rm -f x}'", "destructive", "rm: deletes files"),
    ("ruby -e 'puts `rm -rf x`'", "destructive", "rm: deletes files"),
    (
        'python -c \'import subprocess; subprocess.run(["rm", "-rf", p], check=True)\'',
        "destructive",
        "rm: deletes files (via python code)",
    ),
    ("python -c 'import os; os.system(cmd)'", "unknown", "computed"),
    ('node -e \'require("child_process").execSync("git reset --hard")\'', "destructive", "git"),
    # code holding a value expanded before it is parsed: the value runs as code
    ('bash -c "echo $x"', "unknown", "the value runs as code"),
    ('eval "ls $dir"', "unknown", "the value runs as code"),
    ("bash -c 'echo $x'", "safe", ""),  # expanded by the inner shell: data
    # editors given ex commands: a write lands the edits on disk
    ("ex -sc '%d|x' f", "destructive", "writes the file"),
    ("ex -s -c '%s/a/b/g' -c wq f", "destructive", "writes the file"),
    ("vim -c 'g/foo/d' -c x f", "destructive", "writes the file"),
    ("vi +'1,5d|w' f", "destructive", "writes the file"),
    ("vim -c '!rm -rf x' f", "unknown", "runs a shell command"),
    ('vim -c "$cmd" f', "unknown", "computed"),
    ("vim +10 f", "unknown", "vim"),
    # terminal multiplexers running commands, or typing them into a pane
    ("screen -dmS job rm -rf build", "destructive", "rm: deletes files (via screen)"),
    ("screen -S job -X stuff 'rm -rf /tmp/x\\n'", "destructive", "rm: deletes files"),
    ("screen -r work", "unknown", "screen"),
    ("tmux new -d 'rm -rf build'", "destructive", "rm: deletes files (via tmux)"),
    ("tmux new-session -d -s w 'make test'", "unknown", "make"),
    ("tmux send-keys -t 0 'git reset --hard' Enter", "destructive", "discards changes"),
    ('tmux send-keys -t 0 "$cmd" Enter', "unknown", "the value runs as code"),
    ("tmux run-shell 'rm -f x'", "destructive", "rm: deletes files"),
    ('tmux new -d "rm -rf $dir"', "destructive", "rm: deletes files"),
    # GNU sed by its other name
    ("gsed -i 's/a/b/' f", "destructive", "in place"),
    ("gsed -n 1p f", "safe", ""),
    # chmod over a list made at run time
    ("chmod 644 $(find . -name '*.sh')", "destructive", "listed at run time"),
    ("chmod 755 `ls`", "destructive", "listed at run time"),
    ("find . -type f -exec chmod 644 {} +", "destructive", "listed at run time"),
    ("chmod +x script.sh", "unknown", "chmod"),
    # provably read-only: listings, fingerprints, printing a certificate, a ref, a stream
    # Not tmux ls: it asks the tmux server over its socket, a local service that does what it
    # is asked (the oracle counts the connection), and a -F format runs #(commands) there.
    ("tmux ls", "unknown", "tmux"),
    ("tmux ls -F '#(rm -rf ~)'", "unknown", "tmux"),
    ("openssl x509 -noout -text -in cert.pem", "safe", ""),
    ("openssl x509 -noout -subject -dates -fingerprint -sha256 -in cert.pem", "safe", ""),
    ("openssl x509 -in cert.pem -out cert.der", "unknown", "-noout"),
    ("openssl x509 -noout -text -in http://attacker.example/c", "unknown", "http:"),
    ("openssl x509 -noout -in cert.pem -out x", "unknown", "-out"),
    ("openssl x509 -noout -in cert.pem --out x", "unknown", "--out"),
    ("openssl x509 -noout -in cert.pem -engine evil", "unknown", "-engine"),
    ("openssl x509 -noout -in c.pem -CA ca.pem -CAcreateserial", "unknown", "-CA"),
    ("openssl x509 -noout -in c.pem -provider-path . -provider evil", "unknown", "-provider"),
    ("ssh-keygen -l -f key.pub", "safe", ""),
    ("ssh-keygen -lf key.pub", "safe", ""),
    ("ssh-keygen -E md5 -lf key.pub", "safe", ""),
    ("ssh-keygen -lD /tmp/evil.so", "unknown", "-lD"),  # loads a PKCS#11 library
    ("ssh-keygen -t ed25519 -f k", "unknown", "-l"),
    ("ssh-keygen -l -H -f known_hosts", "unknown", "-H"),
    ("ssh-keygen -lR host", "destructive", "known_hosts"),
    ("git symbolic-ref HEAD", "safe", ""),
    ("git symbolic-ref --short HEAD", "safe", ""),
    ("git symbolic-ref HEAD refs/heads/x", "unknown", "operands"),
    ("git symbolic-ref -d HEAD", "unknown", "-d"),
    ("git symbolic-ref -m why HEAD refs/heads/x", "unknown", "-m"),
    ("gunzip < file.gz", "safe", ""),
    ("xz -dc < f.xz", "safe", ""),
    ("zstd -d < f.zst", "safe", ""),
    ("gunzip file.gz", "unknown", "read-only only with"),
    ("xz --files=list", "unknown", ""),
    ("zstd --filelist=list", "unknown", ""),
    ("gzip < f > f.gz", "destructive", "writes over"),
]


@pytest.mark.parametrize(("command", "level", "reason"), CASES)
def test_case(command: str, level: str, reason: str) -> None:
    verdict = classify(command)
    assert verdict.level == level, verdict.reasons
    assert any(reason in r for r in verdict.reasons) or (not reason and level == "safe"), (
        verdict.reasons
    )
