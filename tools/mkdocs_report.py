"""A mkdocs hook (``mkdocs.yml``: ``hooks``) that puts the committed report on the documentation site: every file of
``reports/`` (the index, the post pages and their parts, the figures, ``results.json``) under ``report/``, so its
pages, inline figures and links work there as on GitHub. The nav names the index and each post's first page; the
other files (later parts, figures, data) are linked from those pages and built without a nav entry."""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel

REPORT = "reports"  # beside mkdocs.yml
SITE_DIR = "report"  # where its files go on the site


def on_files(files: Files, config: MkDocsConfig) -> Files:
    root = Path(config.config_file_path).parent / REPORT
    in_nav = {item for entry in config.nav or [] if isinstance(entry, dict) for value in entry.values()
              for item in (value if isinstance(value, list) else [value])
              for item in ([*item.values()] if isinstance(item, dict) else [item])}
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")):
        uri = f"{SITE_DIR}/{path.relative_to(root).as_posix()}"
        level = InclusionLevel.INCLUDED if uri in in_nav else InclusionLevel.NOT_IN_NAV
        files.append(File.generated(config, uri, abs_src_path=str(path), inclusion=level))
    return files
