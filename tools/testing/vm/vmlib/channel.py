"""Parse the guest's channel port: scenario frames, results, metrics, artefacts."""

import base64
import gzip
import os
import re


class GuestReport:
    """What one scenario sent over the channel during one boot."""

    def __init__(self, name):
        self.name = name
        self.results = []        # [(ok: bool, message)]
        self.metrics = {}        # name -> value (string)
        self.artefacts = {}      # name -> bytes
        self.rc = None           # exit status of the scenario script
        self.seconds = None      # how long it ran, by the guest's clock


class ChannelLog:
    """The whole channel of one boot: per-scenario reports and markers."""

    def __init__(self):
        self.booted = None       # kernel release the guest reported
        self.done = False        # the guest reached the end of its plan
        self.reports = {}        # scenario -> GuestReport
        self.broken = []         # artefacts that could not be decoded


def _store_artefact(log, report, name, chunks):
    """Decode one base64(gzip) artefact into report.artefacts."""
    try:
        report.artefacts[name] = gzip.decompress(base64.b64decode("".join(chunks)))
    except (ValueError, OSError, EOFError) as e:
        log.broken.append(f"{report.name}/{name}: {e}")


def parse_channel(text):
    """Return the ChannelLog described by the channel port's text."""
    log = ChannelLog()
    report = GuestReport("(outside)")
    artefact, chunks = None, []
    for line in text.splitlines():
        line = line.strip("\r\n ")
        if artefact is not None:
            if line == f"@@ ARTEFACT-END {artefact}":
                _store_artefact(log, report, artefact, chunks)
                artefact, chunks = None, []
            elif not line.startswith("@@"):
                chunks.append(line)
            continue
        if line.startswith("@@ BOOT "):
            log.booted = line[len("@@ BOOT "):]
        elif line == "@@ DONE":
            log.done = True
        elif line.startswith("@@ BEGIN "):
            report = log.reports.setdefault(line.split()[2], GuestReport(line.split()[2]))
        elif line.startswith("@@ END "):
            m = re.match(r"@@ END (\S+) rc=(\d+)(?: seconds=([\d.]+))?", line)
            if m:
                report.rc = int(m.group(2))
                if m.group(3):
                    report.seconds = float(m.group(3))
        elif line.startswith("@@ ARTEFACT "):
            artefact = line.split(None, 2)[2]
        elif line.startswith("RESULT: "):
            verdict, _, msg = line[len("RESULT: "):].partition(" ")
            report.results.append((verdict == "ok", msg))
        elif line.startswith("METRIC: "):
            key, _, val = line[len("METRIC: "):].partition("=")
            report.metrics[key.strip()] = val.strip()
    if artefact is not None:
        log.broken.append(f"{report.name}/{artefact}: truncated")
    return log


def save_artefacts(report, directory):
    """Write a report's artefacts as files under directory."""
    os.makedirs(directory, exist_ok=True)
    for name, data in report.artefacts.items():
        with open(os.path.join(directory, os.path.basename(name)), "wb") as f:
            f.write(data)
