#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Runs a command as the traced child of this process (PTRACE_TRACEME), the way a debugger that launches its target
does, and exits with the command's status. Used by the integrity tests: the child must report a tracer."""
import ctypes
import os
import signal
import sys

PTRACE_TRACEME, PTRACE_CONT = 0, 7
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]

pid = os.fork()
if pid == 0:
    if libc.ptrace(PTRACE_TRACEME, 0, None, None) != 0:
        os._exit(125)
    os.execvp(sys.argv[1], sys.argv[1:])
while True:
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status):
        sys.exit(os.WEXITSTATUS(status))
    if os.WIFSIGNALED(status):
        sys.exit(128 + os.WTERMSIG(status))
    if os.WIFSTOPPED(status):
        # Pass real signals on; swallow the SIGTRAP the kernel sends at exec.
        stop = os.WSTOPSIG(status)
        deliver = 0 if stop == signal.SIGTRAP else stop
        libc.ptrace(PTRACE_CONT, pid, None, ctypes.c_void_p(deliver))
