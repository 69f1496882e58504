"""What the benchmark scripts share: the built site they measure, and the record file
they add to it (`new_author.txt`, which `examples/bench.sh` and
`examples/bench_scale.sh` leave in each site they make)."""

import sys
from pathlib import Path


def site_and_new_file(site: str) -> tuple[Path, Path]:
    """The site folder `site` and its `new_author.txt`; exits with a message (status 2)
    when the file is missing."""
    folder = Path(site).resolve()
    new_file = folder / "new_author.txt"
    if not new_file.exists():
        print(f"{new_file} is missing: run `bash examples/bench.sh` first", file=sys.stderr)
        sys.exit(2)
    return folder, new_file
