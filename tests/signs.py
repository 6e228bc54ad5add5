"""Reading printed signs back: text (pdftotext), pages and fonts (pdfinfo, pdffonts), PNG pages (pdftoppm) and
the QR codes on them (zxing-cpp). poppler-utils must be installed (bin/test installs it)."""

import re
import subprocess
import tempfile
from pathlib import Path

import zxingcpp
from PIL import Image


def _run(*args, data):
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(data)
        f.flush()
        return subprocess.run([*args, f.name, *(["-"] if args[0] == "pdftotext" else [])], check=True,
                              capture_output=True, text=True).stdout


def text(pdf, layout=True):
    return _run("pdftotext", *(["-layout"] if layout else []), data=pdf)


def pages(pdf):
    return int(re.search(r"^Pages:\s+(\d+)", _run("pdfinfo", data=pdf), re.M).group(1))


def fonts(pdf):
    """(name, embedded) for every font the PDF uses."""
    lines = _run("pdffonts", data=pdf).splitlines()[2:]
    return [(line.split()[0], line.split()[-5] == "yes") for line in lines if line.strip()]


def png_pages(pdf, out_dir, resolution=150):
    """Render every page to PNG with pdftoppm; returns the files in page order."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(pdf)
        f.flush()
        subprocess.run(["pdftoppm", "-r", str(resolution), "-png", f.name, str(out_dir / "page")], check=True)
    return sorted(out_dir.glob("page-*.png"))


def qr_codes(png):
    codes = zxingcpp.read_barcodes(Image.open(png))
    return [code.text for code in codes if code.format == zxingcpp.BarcodeFormat.QRCode]


def row(bounds, fee):
    """A fee table row as pdftotext -layout prints it: the bounds, then the fee on the same line."""
    return re.compile(re.escape(bounds) + r"[ \t]+" + re.escape(fee) + r"(?!\d)")
