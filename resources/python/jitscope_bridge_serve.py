"""JitScope's bridge (jitscope_bridge.py) kept warm for the window's Run Again: `jitscope_bridge.py --serve`.

    python3 jitscope_bridge.py --serve

The server imports torch once, then reads one JSON request a line on its stdin (a socket JitScope holds, core/bridge/
warmpython.cpp) and answers one JSON line each on its stdout:

    <- {"idle": true, "pid": P, "torch": "2.14.1"}       ready for a request (at start, and after each run)
    -> {"argv": [FILE, "--out", DIR, ...], "stdout": FIFO, "stderr": FIFO, "skip": [MODULE, ...]}
    <- {"started": PID}                                   the run's child, its own process group
    <- {"ended": PID, "exit": CODE, "signal": SIG}        how it ended (one of exit and signal is null)
    <- {"retire": WHY}                                    it can fork no more (then it exits)
    <- {"error": WHY}                                     it cannot serve (this Python has no torch): it exits

Each request runs in a child forked from the server, exactly as a cold `jitscope_bridge.py ARGV` runs (main()): its
own process group, killed with the server (PR_SET_PDEATHSIG), stdin /dev/null, stdout and stderr the FIFOs JitScope
reads, sys.path and torch's random state as the server had them after `import torch`, a fresh __main__. The server
itself never runs the user's code, so every run starts from a clean namespace, and never runs a torch operation nor
starts a thread (fork after `import torch` is what DataLoader's workers do). After a run it imports the library
modules that run imported (site-packages and the standard library, never a file of the user's folder: they edit
those between runs), so that the next run finds them imported; a module that starts a thread or initializes CUDA
while imported retires the server (the next run gets a new one, told to skip that module).

The server exits when its stdin closes (JitScope is gone: a running child's group is killed), when its parent
changes, and after $JITSCOPE_PYTHON_IDLE_S seconds (default 300) without a request.
"""
import json
import os
import select
import signal
import sys
import sysconfig
import tempfile
import threading
import time

IDLE_SECONDS = 300
_FIXED_SEED = 67280421310721  # torch's default generator's first seed, in the versions that do not draw one


def _log(text):
    print("jitscope_bridge_serve[%d]: %s" % (os.getpid(), text), file=sys.stderr, flush=True)


class _Channel:
    """JSON lines in on one fd, out on another."""

    def __init__(self, fd_in, fd_out):
        self.fd_in, self.fd_out = fd_in, fd_out
        self.buffer = b""
        self.closed = False

    def send(self, **message):
        if "retire" in message or "error" in message:
            _log(message.get("retire") or message.get("error"))
        data = (json.dumps(message) + "\n").encode()
        while data:
            data = data[os.write(self.fd_out, data):]

    def pending(self, timeout):
        """Reads what has come within timeout seconds (None: wait); False when the other end closed."""
        if b"\n" in self.buffer:
            return True
        ready, _, _ = select.select([self.fd_in], [], [], timeout)
        if not ready:
            return True
        chunk = os.read(self.fd_in, 65536)
        if not chunk:
            self.closed = True
            return False
        self.buffer += chunk
        return True

    def line(self):
        if b"\n" not in self.buffer:
            return None
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)


def _library_roots():
    roots = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(os.path.realpath(path) + os.sep)
    return tuple(roots)


def _library_modules(known, user_dir):
    """The modules imported since the fork that come from site-packages or the standard library, not from the user's
    folder (a virtual environment inside it is a library): what the next run may find imported."""
    roots = _library_roots()
    names = []
    for name, module in list(sys.modules.items()):
        if name in known or name == "__main__" or name.startswith("jitscope_bridge"):
            continue
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            continue
        path = os.path.realpath(path)
        packages = "-packages" + os.sep in path
        if path.startswith(user_dir + os.sep) and not packages:
            continue
        if packages or path.startswith(roots):
            names.append(name)
    return names


def _shadowed(user_dir, names):
    """The imported modules whose top-level name a file or folder of the user's folder holds: the user's folder comes
    first on the run's sys.path, so the run imports theirs."""
    tops = {n.split(".", 1)[0] for n in names}
    return {t for t in tops if os.path.exists(os.path.join(user_dir, t + ".py"))
            or os.path.isdir(os.path.join(user_dir, t))}


def _child(main, request, state, out, err):
    """In the forked child, with the run's stdout and stderr open: become a cold run of the bridge, never return."""
    code = 1
    try:
        os.setpgid(0, 0)
        if state["libc"] is not None:
            state["libc"].prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: dies with the server
        if os.getppid() != state["pid"]:
            os._exit(1)  # the server died before prctl()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        for fd in (null, out, err, state["in"], state["out"]):
            os.close(fd)
        sys.path[:] = state["path"]
        import torch
        if state["rng"] is not None:
            torch.random.set_rng_state(state["rng"])  # a torch whose first seed is fixed: as a cold run starts
        else:
            torch.seed()  # a torch that seeds itself from entropy as it starts (2.x): a seed of the run's own
        if "numpy.random" in sys.modules:
            sys.modules["numpy.random"].seed()  # a cold run's numpy draws from fresh entropy (random reseeds itself)
        argv = list(request["argv"])
        user_dir = os.path.dirname(os.path.realpath(argv[0]))
        shadowed = _shadowed(user_dir, state["preloaded"])
        for name in [n for n in sys.modules if n.split(".", 1)[0] in shadowed]:
            del sys.modules[name]
        known = set(sys.modules)

        def before_exit():
            names = _library_modules(known, user_dir)
            tmp = state["modules"] + ".part"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(names, f)
            os.replace(tmp, state["modules"])

        main(argv, before_exit)
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 (as Python itself prints it)
        import traceback
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _wait(channel, pid):
    """The run's wait status; None when JitScope went away meanwhile (the run's group is killed)."""
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            fds = [channel.fd_in] + ([pidfd] if pidfd is not None else [])
            ready, _, _ = select.select(fds, [], [], None if pidfd is not None else 0.02)
            if channel.fd_in in ready and not channel.pending(0):
                _kill_group(pid)
                os.waitpid(pid, 0)
                return None
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def _preload(names, skip):
    """Imports the modules a run imported; the first that left a thread or CUDA behind, or None."""
    import importlib
    import torch
    for name in sorted(names):
        if name in sys.modules or name in skip:
            continue
        try:
            importlib.import_module(name)
        except BaseException as e:  # noqa: BLE001 (it is the next run's to import, and fail, if it must)
            _log("importing %s: %s" % (name, e))
        if threading.active_count() > 1 or torch.cuda.is_initialized():
            return name
    return None


def serve(main):
    """Serves runs of main(argv, before_exit) until stdin closes, the parent changes or the server idles too long."""
    channel = _Channel(os.dup(0), os.dup(1))
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)  # what an import prints goes nowhere, never into the answers
    os.close(null)
    parent = os.getppid()
    try:
        idle = float(os.environ.get("JITSCOPE_PYTHON_IDLE_S", IDLE_SECONDS))
    except ValueError:
        idle = IDLE_SECONDS
    try:
        import torch
    except BaseException as e:  # noqa: BLE001 (named to JitScope, which runs the file cold for the real message)
        channel.send(error="this Python has no torch: %s" % e)
        os._exit(1)
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
    except (ImportError, OSError):
        libc = None
    folder = tempfile.mkdtemp(prefix="jitscope-warm-")
    state = {"pid": os.getpid(), "libc": libc, "in": channel.fd_in, "out": channel.fd_out, "path": list(sys.path),
             "rng": torch.random.get_rng_state() if torch.initial_seed() == _FIXED_SEED else None, "preloaded": [],
             "modules": os.path.join(folder, "modules.json")}
    try:
        channel.send(idle=True, pid=os.getpid(), torch=torch.__version__)
        deadline = time.monotonic() + idle
        while True:
            request = channel.line()
            while request is None:
                left = deadline - time.monotonic()
                if left <= 0 or os.getppid() != parent or not channel.pending(min(left, 1.0)):
                    _log("idle too long" if left <= 0 else "JitScope went away")
                    return
                request = channel.line()
            if threading.active_count() > 1:
                channel.send(retire="a thread is running in the server")
                return
            sys.stdout.flush()
            sys.stderr.flush()
            # Opened here, before JitScope may remove them from the folder once it knows the run started.
            try:
                out = os.open(request["stdout"], os.O_WRONLY)
                err = os.open(request["stderr"], os.O_WRONLY)
            except (OSError, KeyError, TypeError) as e:
                channel.send(retire="cannot open the run's output: %s" % e)
                return
            pid = os.fork()
            if pid == 0:
                _child(main, request, state, out, err)
            os.close(out)
            os.close(err)
            try:
                os.setpgid(pid, pid)  # before JitScope may kill the group, whichever of the two runs first
            except OSError:
                pass
            channel.send(started=pid)
            status = _wait(channel, pid)
            if status is None:
                return
            _kill_group(pid)  # what the file left running
            names = []
            try:
                with open(state["modules"], encoding="utf-8") as f:
                    names = json.load(f)
                os.remove(state["modules"])
            except (OSError, ValueError):
                pass
            channel.send(ended=pid, exit=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                         signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None)
            _log("run %d ended (wait status %d); importing the %d modules it imported" % (pid, status, len(names)))
            state["preloaded"] = sorted(set(state["preloaded"]) | set(names))
            unsafe = _preload(names, set(request.get("skip", ())))
            if unsafe is not None:
                channel.send(retire="importing %s started a thread or CUDA" % unsafe, module=unsafe)
                return
            channel.send(idle=True, pid=os.getpid(), torch=torch.__version__)
            deadline = time.monotonic() + idle
    except BaseException:  # noqa: BLE001 (said in the log; JitScope replaces the server)
        import traceback
        _log(traceback.format_exc())
    finally:
        import shutil
        shutil.rmtree(folder, ignore_errors=True)
        os._exit(0)
