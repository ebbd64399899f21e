#!/usr/bin/python3
"""Renders an HTML report in headless Chromium and reports what happened, as JSON on stdout.

usage: report_browser_check.py CHROMIUM PAGE.html WORKDIR

- dom: Chromium's serialised DOM after load (--dump-dom), counted: chart <svg> elements,
  figures, drawn shapes, and whether the parser complained; the tooltips of change-point marks
  and of a profile chart's bars and a flame graph's frames.
- desktop, phone: a screenshot at 1280 and 390 CSS pixels wide (device scale 0.5), decoded here (PNG, zlib, no
  extra packages): size, share of non-white pixels, distinct colours, and how many pixels lie
  near each colour of the report's palette (so we know the charts were painted, not just
  present in the DOM).
- requests: every Chromium run goes through an HTTP proxy on loopback that this script runs and
  that answers 502 to everything; `page` counts the connections made while the report was
  open. `blank` counts them for an empty page (Chromium's own traffic, which the flags below
  switch off), and `control` for a page that does fetch an image and a stylesheet, to prove that
  the counter sees requests at all. Host names resolve to nothing (--host-resolver-rules), so a request
  could not leave the machine even if it bypassed the proxy.

Only the standard library is used: the test runs with Debian's /usr/bin/python3.
"""
import collections
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

PALETTE = {
    "#0072B2": (0x00, 0x72, 0xB2),
    "#E69F00": (0xE6, 0x9F, 0x00),
    "#009E73": (0x00, 0x9E, 0x73),
    "#D55E00": (0xD5, 0x5E, 0x00),
    "#CC79A7": (0xCC, 0x79, 0xA7),  # change points
    "#B2182B": (0xB2, 0x18, 0x2B),  # a profile chart's slower functions
    "#2166AC": (0x21, 0x66, 0xAC),  # and its faster ones
}


class CountingProxy:
    """Accepts TCP connections on 127.0.0.1, counts them, records the request line."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.lock = threading.Lock()
        self.requests = []
        self.active = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self.lock:
                self.active += 1
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn):
        line = b""
        try:
            conn.settimeout(3)
            while b"\n" not in line and len(line) < 4096:
                chunk = conn.recv(1024)
                if not chunk:
                    break
                line += chunk
            conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except OSError:
            pass
        finally:
            conn.close()
            with self.lock:
                self.requests.append(line.split(b"\r\n", 1)[0].decode("latin-1"))
                self.active -= 1

    def take(self):
        # Let connections accepted before Chromium exited finish being recorded.
        for _ in range(50):
            time.sleep(0.1)
            with self.lock:
                if self.active == 0:
                    break
        with self.lock:
            taken, self.requests = self.requests, []
        return taken


def chromium(binary, proxy, workdir, url, extra):
    profile = tempfile.mkdtemp(prefix="profile-", dir=workdir)
    try:
        command = [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--user-data-dir=" + profile,
            "--proxy-server=http://127.0.0.1:%d" % proxy.port,
            # Loopback is normally exempt from proxies; "<-loopback>" removes the exemption.
            "--proxy-bypass-list=<-loopback>",
            # Loopback stays resolvable so that Chromium reaches the proxy.
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
            # Chromium's own services (component updater, sign-in, network time, hints) would
            # talk to the network by themselves; point them at a closed local port or switch
            # them off, so that any request the proxy sees comes from the page.
            "--disable-extensions",
            "--disable-default-apps",
            "--no-default-browser-check",
            "--no-pings",
            "--disable-domain-reliability",
            "--disable-client-side-phishing-detection",
            "--disable-breakpad",
            "--disable-field-trial-config",
            "--metrics-recording-only",
            "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,"
            "OptimizationGuideModelDownloading,Translate,MediaRouter,AutofillServerCommunication,"
            "CertificateTransparencyComponentUpdater",
            "--component-updater=url-source=http://127.0.0.1:9/",
            "--variations-server-url=http://127.0.0.1:9/",
            "--gaia-url=http://127.0.0.1:9/",
            "--google-apis-url=http://127.0.0.1:9/",
            "--lso-url=http://127.0.0.1:9/",
        ] + extra + [url]
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180)
        return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def unfilter_row(kind, line, previous, bpp):
    """Undoes one PNG scanline filter (PNG spec, section 9). Up, the most common filter in
    Chromium's screenshots, is done on whole rows at once with integer arithmetic; the others
    depend on the byte to their left and go byte by byte."""
    n = len(line)
    if kind == 0:
        return bytes(line)
    if kind == 2:
        # Bytewise (a + b) mod 256 on n-byte integers: add the low 7 bits of every byte, then
        # put the top bits back with xor, so that no carry crosses a byte.
        high = int.from_bytes(b"\x80" * n, "big")
        low = int.from_bytes(b"\x7f" * n, "big")
        a, b = int.from_bytes(line, "big"), int.from_bytes(previous, "big")
        return (((a & low) + (b & low)) ^ ((a ^ b) & high)).to_bytes(n, "big")
    out = bytearray(line)
    if kind == 1:
        for i in range(bpp, n):
            out[i] = (out[i] + out[i - bpp]) & 0xFF
    elif kind == 3:
        for i in range(n):
            left = out[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + ((left + previous[i]) >> 1)) & 0xFF
    elif kind == 4:
        for i in range(n):
            if i >= bpp:
                a, c = out[i - bpp], previous[i - bpp]
            else:
                a = c = 0
            b = previous[i]
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    else:
        raise ValueError("bad PNG filter type %d" % kind)
    return bytes(out)


def decode_png(path):
    """Returns (width, height, channels, rows of bytes) for 8-bit RGB or RGBA PNGs."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG: " + path)
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace != 0:
                raise ValueError("unsupported PNG format: depth %d colour %d" % (depth, colour))
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        previous = unfilter_row(raw[start], raw[start + 1:start + 1 + stride], previous, channels)
        rows.append(previous)
    return width, height, channels, rows


def screenshot_stats(path):
    width, height, channels, rows = decode_png(path)
    counts = collections.Counter()
    for row in rows:
        counts.update(zip(row[0::channels], row[1::channels], row[2::channels]))
    non_white = sum(n for (r, g, b), n in counts.items() if r < 245 or g < 245 or b < 245)
    near = {}
    for name, (pr, pg, pb) in PALETTE.items():
        near[name] = sum(n for (r, g, b), n in counts.items()
                         if (r - pr) ** 2 + (g - pg) ** 2 + (b - pb) ** 2 <= 30 ** 2)
    return {
        "width": width,
        "height": height,
        "non_white_fraction": non_white / float(width * height),
        "distinct_colours": len(counts),
        "palette_pixels": near,
    }


def dom_stats(dom):
    return {
        "bytes": len(dom),
        "chart_svgs": len(re.findall(r'<svg[^>]*class="chart ', dom)),
        "figures": dom.count("<figure>"),
        "paths": dom.count("<path"),
        "circles": dom.count("<circle"),
        "tables": dom.count("<table>"),
        "parser_error": "parsererror" in dom,
        "has_title": "<h1>" in dom,
        # The tooltip of each change-point mark, as the browser's DOM holds it.
        "change_points": re.findall(r'<g class="change-point"><title>([^<]*)</title>', dom),
        # The tooltip of each bar of a profile chart.
        "profile_frames": re.findall(r'<g class="profile-frame"><title>([^<]*)</title>', dom),
        # The tooltip of each frame of a differential flame graph.
        "flame_frames": re.findall(r'<g class="flame-frame"><title>([^<]*)</title>', dom),
    }


def main():
    binary, page, workdir = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    url = "file://" + page
    proxy = CountingProxy()
    result = {}

    code, dom, err = chromium(binary, proxy, workdir, url, ["--dump-dom"])
    result["dom"] = dom_stats(dom)
    result["dom"]["exit_code"] = code
    if code != 0:
        result["dom"]["stderr"] = err[-2000:]

    # A device scale of 0.5 halves each side of the image: a quarter of the pixels to decode in
    # pure Python, the same layout (CSS pixels) as a 1280- or 390-pixel-wide screen.
    for name, size, scale in (("desktop", "1280,6000", "0.5"), ("phone", "390,12000", "0.5")):
        png = os.path.join(workdir, name + ".png")
        code, _, err = chromium(binary, proxy, workdir, url,
                                ["--screenshot=" + png, "--window-size=" + size,
                                 "--force-device-scale-factor=" + scale])
        if code != 0 or not os.path.exists(png):
            result[name] = {"error": "chromium exit %d: %s" % (code, err[-2000:])}
        else:
            result[name] = screenshot_stats(png)
    result["requests"] = {"page": proxy.take()}

    # Chromium by itself on an empty page: it must be quiet for the count above to mean
    # anything about the report.
    blank = os.path.join(workdir, "blank.html")
    with open(blank, "w") as f:
        f.write("<!DOCTYPE html><html><body><p>blank</p></body></html>")
    chromium(binary, proxy, workdir, "file://" + blank, ["--dump-dom"])
    result["requests"]["blank"] = proxy.take()

    # The control: a page that fetches an image over http and a stylesheet over https must be
    # seen by the proxy, or the zero above proves nothing.
    control = os.path.join(workdir, "control.html")
    with open(control, "w") as f:
        f.write('<!DOCTYPE html><html><head><link rel="stylesheet" href="https://example.com/s.css">'
                '</head><body><img src="http://example.com/x.png"></body></html>')
    chromium(binary, proxy, workdir, "file://" + control, ["--dump-dom"])
    result["requests"]["control"] = proxy.take()
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
