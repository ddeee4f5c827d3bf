"""Building the compiled simulation core (:mod:`harness.native`) with mypyc.

:func:`build` compiles :data:`~harness.native.SOURCES` as one mypyc group and copies the
extension modules into :func:`~harness.native.build_dir`, with a manifest of the sources'
SHA-256 that :func:`harness.native.install` checks before serving them.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

from harness.native import GROUP, MANIFEST, ROOT, SOURCES, build_dir, digests


def build(root: Path = ROOT, force: bool = False) -> Path:
    """Compile :data:`SOURCES` with mypyc into :func:`build_dir` (nothing to do when its
    manifest matches the sources, unless ``force``); returns the build folder."""
    out = build_dir(root)
    wanted = digests(root)
    manifest_path = out / MANIFEST
    if not force and manifest_path.is_file():
        try:
            if json.loads(manifest_path.read_text()).get("sources") == wanted:
                print(f"harness.native: up to date ({out})")
                return out
        except ValueError:
            pass
    with tempfile.TemporaryDirectory(prefix="harness-native-") as tmp:
        files = _compile(root, Path(tmp))
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        for built in files.values():
            target = out / built.relative_to(Path(tmp) / "lib")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built, target)
    import mypy.version

    manifest_path.write_text(json.dumps({
        "mypy": mypy.version.__version__,
        "python": sys.version.split()[0],
        "sources": wanted,
        "files": {name: str(path.relative_to(Path(tmp) / "lib")) for name, path in files.items()},
    }, indent=1) + "\n")
    print(f"harness.native: built {len(SOURCES)} modules into {out}")
    return out


def _compile(root: Path, tmp: Path) -> dict[str, Path]:
    """mypyc + setuptools' build_ext in ``tmp``; module name -> built extension file."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    here = Path.cwd()
    os.chdir(root)  # mypyc names modules and reads the mypy config (pyproject.toml) from here
    try:
        extensions = mypycify(list(SOURCES), opt_level="3", group_name=GROUP,
                              target_dir=str(tmp / "c"), multi_file=True)
        dist = Distribution({"name": "harness-native", "ext_modules": extensions})
        dist.verbose = False  # (no line per compiler call)
        command = dist.get_command_obj("build_ext")
        command.build_lib = str(tmp / "lib")
        command.build_temp = str(tmp / "temp")
        command.parallel = os.cpu_count() or 1
        dist.run_command("build_ext")
    finally:
        os.chdir(here)
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    found = {}
    for ext in extensions:
        path = tmp / "lib" / (ext.name.replace(".", "/") + suffix)
        found[ext.name] = path
    return found


