"""The manifest that ``generate`` writes and ``check-symbols --manifest`` reads."""

from __future__ import annotations

MANIFEST_SCHEMA = "shimgen-manifest/1"
"""Written into every manifest.json; a reader refuses any other value."""
