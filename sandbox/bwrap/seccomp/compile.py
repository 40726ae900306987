"""Compiles profile.json into a seccomp BPF program for bubblewrap's --seccomp FD, with libseccomp (python3-seccomp).

    python3 compile.py PROFILE.json > filter.bpf

The filter is for this machine's native architecture; a system call of another ABI (i386 through int 0x80, x32)
is killed, as it could name a call the filter never saw. A name this libseccomp does not know for the
architecture is left out and named on stderr (it cannot be called there either). Writes the BPF program to stdout.
"""
import errno
import json
import sys

import seccomp


def compile_profile(profile: dict) -> seccomp.SyscallFilter:
    refused = seccomp.ERRNO(getattr(errno, profile["errno"]))
    syscall_filter = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    # another ABI's calls are killed rather than allowed: the rules below are written for the native one
    syscall_filter.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    unknown = []
    for group in profile["groups"]:
        for name in group["syscalls"]:
            try:
                syscall_filter.add_rule(refused, name)
            except (RuntimeError, ValueError):
                unknown.append(name)
    clone = profile["cloneNamespaceFlags"]
    for flag in clone["flags"].values():
        syscall_filter.add_rule(refused, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    try:
        syscall_filter.add_rule(seccomp.ERRNO(getattr(errno, clone["clone3"])), "clone3")
    except (RuntimeError, ValueError):
        unknown.append("clone3")
    if unknown:
        print("not known to this libseccomp here, left out: " + " ".join(unknown), file=sys.stderr)
    return syscall_filter


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as handle:
        profile = json.load(handle)
    compile_profile(profile).export_bpf(sys.stdout)


if __name__ == "__main__":
    main()
