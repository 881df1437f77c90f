"""Writes a CSV as Parquet with pyarrow's defaults and one page codec, for
TestParquetSizeVsPyarrow (workload/data/pyarrow_test.go), and prints the
file's size, pyarrow's version, the row groups and each column's encodings
as one JSON line.

usage: python pyarrow_parquet.py IN.csv OUT.parquet CODEC [LEVEL]
"""
import json
import os
import sys

import pyarrow
import pyarrow.csv
import pyarrow.parquet as pq

src, out, codec = sys.argv[1], sys.argv[2], sys.argv[3]
level = int(sys.argv[4]) if len(sys.argv) > 4 else None
t = pyarrow.csv.read_csv(src)
pq.write_table(t, out, compression=codec, compression_level=level)
md = pq.ParquetFile(out).metadata
encodings = {}
for g in range(md.num_row_groups):
    for c in range(md.num_columns):
        col = md.row_group(g).column(c)
        encodings.setdefault(col.path_in_schema, sorted(set(col.encodings)))
print(json.dumps({
    "pyarrow": pyarrow.__version__,
    "bytes": os.path.getsize(out),
    "rows": md.num_rows,
    "row_groups": md.num_row_groups,
    "encodings": encodings,
}))
