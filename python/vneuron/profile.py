"""Profiles from Python: vneuron.Profile over libvnprofile (profiler/vnprofile.h).

A profile (.vntf, written by `vneuron-profile capture` or vneuron.capture) is read with
the programs it ran (.vnef) and gives what `vneuron-profile view` gives: the headline
figures, the class, the critical path, the findings with their replayed gains, every
execution and every instruction, DMA descriptor and collective as a NumPy structured
array, and each output format.
"""

import json
import os

import numpy

from vneuron import _vneuron

__all__ = ["Profile", "ProfileView", "event_dtype", "execution_dtype"]

event_dtype = _vneuron.event_dtype
execution_dtype = _vneuron.execution_dtype

_FORMATS_BY_SUFFIX = {
    ".pftrace": "perfetto",
    ".perfetto-trace": "perfetto",
    ".html": "html",
    ".json": "json",
    ".txt": "summary-text",
}


def _programs(programs):
    """Split programs into paths and in-memory images (bytes or vneuron.Program)."""
    if programs is None:
        return [], []
    if isinstance(programs, (str, bytes, os.PathLike, _vneuron.Program)):
        programs = [programs]
    paths, images = [], []
    for p in programs:
        if isinstance(p, _vneuron.Program):
            images.append((p.image, p.name))
        elif isinstance(p, (bytes, bytearray, memoryview)):
            images.append((bytes(p), "<bytes %d>" % len(images)))
        else:
            paths.append(os.fspath(p))
    return paths, images


class ProfileView:
    """One program's executions in a profile, computed and analysed.

    A profile of one program has one view (Profile.views[0]; the Profile's own
    attributes are its); an application that ran several programs has one each.

    Attributes (computed on first use, kept):
      summary     the headline figures, a dict named as summary-json's: program, model,
                  backend, cores, executions, total_time_ps, core_time_ps,
                  critical_path_ps, event_count, instruction_count, dma_count,
                  collective_count, hardware_flops, hbm_read_bytes, hbm_write_bytes,
                  dma_bytes, lost_records, malformed_records, hfu, mfu, mbu,
                  arithmetic_intensity, ridge_point, class, class_label, class_why,
                  bound_unit, findings (their number)
      findings    the findings in rank order, dicts: rule, title, evidence, advice,
                  gain (text), impact, saved_ps, replayed, before_ps, after_ps,
                  then_class and then (a replayed fix: the fixed program's class and
                  what bounds it next, analysed again; else None)
      events      every instruction, DMA descriptor and collective in start order, a
                  NumPy structured array of vneuron.event_dtype over the library's own
                  array (read-only, no copy): start_ps, end_ps, flops, wait_ps,
                  cc_wait_ps, bytes, elements, pc, exec, file, line, scope, opcode,
                  worker, sem_wait, sem_signal, core, stream, engine, queue; file and
                  scope index strings
      executions  the executions, a structured array of vneuron.execution_dtype:
                  start_ps, end_ps, model_ps, host_start_ns, host_end_ns, exec, round,
                  core, worker, status, reason
      strings     the events' string table (index 0 is "")
      cores       the core slots, dicts: device, core, worker, nr_workers, node, label
    """

    def __init__(self, profile, index):
        self._p = profile
        self.index = index

    def _get(self, name):
        # Plain values, kept by the profile: nothing there refers back to it, so the
        # profile is freed as soon as the last reference goes (the arrays are made
        # anew each time, over the library's memory: they hold the profile, and an
        # array cached here would make a cycle the collector cannot see through).
        cache = self._p._caches[self.index]
        if name not in cache:
            cache[name] = getattr(self._p, "_" + name)(self.index)
        return cache[name]

    summary = property(lambda self: dict(self._get("summary")),
                       doc="The headline figures (a dict).")
    findings = property(lambda self: list(self._get("findings")),
                        doc="The findings in rank order (dicts).")
    events = property(lambda self: self._p._events(self.index),
                      doc="Every event, a structured array (vneuron.event_dtype).")
    executions = property(lambda self: self._p._executions(self.index),
                          doc="The executions (vneuron.execution_dtype).")
    strings = property(lambda self: self._get("strings"),
                       doc="The events' string table (file and scope index it).")
    cores = property(lambda self: self._get("cores"), doc="The core slots (dicts).")

    def table(self):
        """The events as columns with their names resolved: a dict of NumPy arrays.

        Columns: start_ps, end_ps, duration_ps, engine ("TensorE", ..., "DMA"), stream
        ("DMA q3"), queue (-1 for engines), opcode ("MULTIPLY_MOVING", "DMA"), bytes,
        flops, elements, file, line, source ("file:line"), scope, exec, core, worker.
        `pandas.DataFrame(view.table())` gives a data frame.
        """
        ev = self.events
        strings = numpy.array(self.strings, dtype=object)

        def names(col, fn):
            uniq, inv = numpy.unique(ev[col], return_inverse=True)
            return numpy.array([fn(int(u)) for u in uniq], dtype=object)[inv]

        file = strings[ev["file"]]
        line = ev["line"]
        source = numpy.array(["%s:%d" % (f, n) if f else "" for f, n in zip(file, line)],
                             dtype=object)
        queue = ev["queue"].astype(numpy.int16)
        queue[ev["queue"] == 0xFF] = -1
        return {
            "start_ps": ev["start_ps"],
            "end_ps": ev["end_ps"],
            "duration_ps": ev["end_ps"] - ev["start_ps"],
            "engine": names("engine", _vneuron._engine_name),
            "stream": names("stream", _vneuron._stream_name),
            "queue": queue,
            "opcode": names("opcode", _vneuron._opcode_name),
            "bytes": ev["bytes"],
            "flops": ev["flops"],
            "elements": ev["elements"],
            "file": file,
            "line": line,
            "source": source,
            "scope": strings[ev["scope"]],
            "exec": ev["exec"],
            "core": ev["core"],
            "worker": ev["worker"],
        }

    def __repr__(self):
        s = self.summary
        return "<vneuron.ProfileView %d: %r, %d executions, %s>" % (
            self.index, s["program"], s["executions"], s["class_label"])


class Profile(_vneuron._Profile):
    """Profile(profiles, programs=None, *, only=None, host_clock=False, replay=True,
               salvage=False, hash_check=True, model_flops=0)

    A profile read with its programs, as `vneuron-profile view -n PROGRAMS -s PROFILES`
    reads them (libvnprofile does the work).

    profiles: a .vntf path, or a list of them (the profiles of several workers or nodes,
    read as one); a directory stands for its *.vntf files. programs: the programs it ran:
    .vnef paths (a directory for its *.vnef), vneuron.Program objects or .vnef bytes; a
    profile written by vneuron.capture(program=...) or `capture -n` records its program's
    identity and is matched by it. only: of a profile that ran several programs, the one
    to view (its name, path or 6+ hex digits of its SHA-256). host_clock: executions at
    their host time (view --clock host). replay=False: estimated gains only, no replay
    of the fixes on the device model. salvage: read a profile cut short up to the damage.
    hash_check=False: accept a program whose SHA-256 differs. model_flops: the model's
    useful flops per execution, for mfu.

    views is one ProfileView per program; for a profile of one program, summary,
    findings, events, executions, strings, cores and table() are its view's.

    Outputs: render(fmt) returns the whole profile as `view -f fmt` prints it (str;
    bytes for perfetto), summary_json() the summary-json as a dict, and
    write(path, fmt=None, force=False) writes a file atomically (the format from the
    suffix when not given: .pftrace perfetto, .html, .json, .txt summary-text).

    Errors: vneuron.Error with the library's message (a profile or program that cannot
    be read, programs that do not match). The arrays keep the profile alive.

    Example:
        p = vneuron.Profile("exp.vntf", programs=["exp.vnef"])
        print(p.summary["class_label"], p.findings[0]["gain"])
        ev = p.events
        dma = ev[ev["engine"] == 4]                 # DMA descriptors
        p.write("exp.pftrace")
    """

    def __init__(self, profiles, programs=None, *, only=None, host_clock=False,
                 replay=True, salvage=False, hash_check=True, model_flops=0):
        if isinstance(profiles, (str, bytes, os.PathLike)):
            profiles = [profiles]
        paths, images = _programs(programs)
        flags = 0
        if host_clock:
            flags |= _vneuron._HOST_CLOCK
        if not replay:
            flags |= _vneuron._NO_REPLAY
        if salvage:
            flags |= _vneuron._SALVAGE
        if not hash_check:
            flags |= _vneuron._NO_HASH_CHECK
        super().__init__([os.fspath(p) for p in profiles], paths, images, only, flags,
                         model_flops)
        self._caches = [{} for _ in range(self._nviews)]

    @property
    def views(self):
        """One ProfileView per program the profile ran."""
        return [ProfileView(self, i) for i in range(self._nviews)]

    def _one(self):
        if self._nviews != 1:
            raise ValueError("the profile ran %d programs: use profile.views[i] (or "
                             "only=)" % self._nviews)
        return ProfileView(self, 0)

    summary = property(lambda self: self._one().summary, doc=ProfileView.summary.__doc__)
    findings = property(lambda self: self._one().findings,
                        doc=ProfileView.findings.__doc__)
    events = property(lambda self: self._one().events, doc=ProfileView.events.__doc__)
    executions = property(lambda self: self._one().executions,
                          doc=ProfileView.executions.__doc__)
    strings = property(lambda self: self._one().strings, doc=ProfileView.strings.__doc__)
    cores = property(lambda self: self._one().cores, doc=ProfileView.cores.__doc__)

    def table(self):
        """The events as named columns (ProfileView.table())."""
        return self._one().table()

    def render(self, fmt="summary-text"):
        """The whole profile in a format: "summary-text", "summary-json", "json"
        (str), "perfetto" (bytes) or "html" (str), as `view -f FMT` writes it."""
        return self._render(fmt)

    def summary_json(self):
        """The summary-json output as a dict: every metric `view -f summary-json`
        gives (engines, DMA, scopes, lines, ranges, advice, ...)."""
        return json.loads(self._render("summary-json"))

    def write(self, path, fmt=None, force=False):
        """Writes the profile in a format to path, through a temporary file renamed
        into place; an existing file only with force (else FileExistsError), never one
        of the inputs. fmt: as render(); None takes it from path's suffix."""
        if fmt is None:
            suffix = os.path.splitext(os.fspath(path))[1].lower()
            if suffix not in _FORMATS_BY_SUFFIX:
                raise ValueError("%s: give fmt= (no format for the suffix %r)" %
                                 (path, suffix))
            fmt = _FORMATS_BY_SUFFIX[suffix]
        self._write(path, fmt, force)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "<vneuron.Profile of %d program%s>" % (self._nviews,
                                                       "" if self._nviews == 1 else "s")
