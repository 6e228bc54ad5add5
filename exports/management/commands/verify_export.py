import json
from pathlib import Path

from django.core.management.base import CommandError

from cardroom.bundle import load_public_key
from cardroom.management.base import BaseCommand

from ...verification import check


def _period(period):
    if isinstance(period, dict):
        if period.get("from") and period.get("to"):
            return f"period {period['from']} to {period['to']}"
        if period.get("as_of"):
            return f"everything as of {period['as_of']}"
    return f"period {json.dumps(period, sort_keys=True, ensure_ascii=False)}"


def _chains(chains):
    if isinstance(chains, list) and all(isinstance(c, dict) and "chain" in c for c in chains):
        heads = []
        for chain in chains:
            head = f"{chain['chain']}"
            if chain.get("sequence") is not None:
                head += f" #{chain['sequence']}"
            if isinstance(chain.get("entry_hash"), str):
                head += f" ({chain['entry_hash'][:16]})"
            heads.append(head)
        return f"audit chains {', '.join(heads) if heads else '(none)'}"
    return f"audit chains {json.dumps(chains, sort_keys=True, ensure_ascii=False)}"


def summary(manifest, key_fingerprint):
    """One line saying what a verified bundle holds."""
    files = manifest.get("files") or []
    parts = [f"OK: {len(files)} file{'s' if len(files) != 1 else ''} verified",
             f"format {manifest.get('format')}", f"manifest signed by {key_fingerprint}"]
    if "period" in manifest:
        parts.append(_period(manifest["period"]))
    if "audit_chains" in manifest:
        parts.append(_chains(manifest["audit_chains"]))
    generator = manifest.get("generator")
    if isinstance(generator, dict) and generator.get("version"):
        made = f"made by {generator.get('name') or 'cardroom'} {generator['version']}"
        if generator.get("commit"):
            made += f" ({str(generator['commit'])[:12]})"
        parts.append(made)
    if manifest.get("generated_at"):
        parts.append(f"generated at {manifest['generated_at']}")
    return "; ".join(parts)


class Command(BaseCommand):
    help = (
        "Check an audit export bundle (zip), of format 3, 2 or 1 (the line says which; 3: a bundle of bundles, each "
        "inner bundle checked too): every file's SHA-256 and size "
        "against its manifest, no file missing or added, and the manifest's Ed25519 signature. Needs only the "
        "bundle and the public key (by default this installation's). Exits non-zero naming every file altered, "
        "missing or added."
    )

    def add_arguments(self, parser):
        parser.add_argument("bundle", help="The bundle to check (.zip).")
        parser.add_argument(
            "--public-key", dest="public_key", metavar="FILE",
            help="A file holding the Ed25519 public key to check against (PEM, or base64 of the raw 32 bytes); "
                 "by default this installation's key.",
        )

    def handle(self, *args, bundle: str, public_key=None, **options):
        path = Path(bundle)
        if not path.is_file():
            raise CommandError(f"{bundle}: no such file" if not path.exists() else f"{bundle}: not a file")
        key = None  # the installation's key that signed it, current or rotated, trusted and in its window
        if public_key:
            try:
                key = load_public_key(Path(public_key).read_bytes())
            except OSError as error:
                raise CommandError(f"{public_key}: cannot read the public key ({error.strerror or error})") from None
            except ValueError as error:
                raise CommandError(f"{public_key}: {error}") from None
        # The one check the API and the page run: the same limits, and the same trust in the installation's keys.
        with path.open("rb") as handle:
            checked = check(handle, key)
        result, signer = checked.verification, checked.public_key_fingerprint
        if not result.ok:
            lines = "\n".join(f"  - {problem}" for problem in result.problems)
            raise CommandError(
                f"{bundle} does NOT verify against {signer} "
                f"({len(result.problems)} problem{'s' if len(result.problems) != 1 else ''}):\n{lines}"
            )
        self.stdout.write(summary(result.manifest, signer))
