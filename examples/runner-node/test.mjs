// node --test examples/runner-node/
// Checks the digest against every test vector of digest/testdata (runner-protocol.md §8), on the
// base native rows and on what each subject decodes after a round trip with each codec, and the
// worked example of §9.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  parseExact, parseFields, leaves, rowToNative, digestRows, formatDecimal, RawNumber,
  SUBJECTS, CODECS, pipeline, helloLine,
} from './runner.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const vectorsDir = path.resolve(here, '../../digest/testdata');
const vectorFiles = fs.readdirSync(vectorsDir).filter((f) => f.endsWith('.json')).sort();

// A vector's schema, rows and expectations; the rows read with the exact reader.
function loadVector(file) {
  const text = fs.readFileSync(path.join(vectorsDir, file), 'utf8');
  const raw = parseExact(text);
  const plain = JSON.parse(text);
  const fields = parseFields(plain.schema);
  return {
    fields,
    leafList: leaves(fields),
    rows: raw.rows.map((r) => rowToNative(fields, r)),
    columns: plain.columns,
    table: plain.table,
    equal: plain.equal_columns ?? [],
  };
}

function check(v, got, label) {
  const want = Object.keys(v.columns).sort();
  assert.deepEqual(got.columns.map((c) => c.path).sort(), want, `${label}: leaf columns`);
  for (const c of got.columns) assert.equal(c.digest, v.columns[c.path], `${label}: column ${c.path}`);
  assert.equal(got.table, v.table, `${label}: table`);
  assert.equal(got.rows, v.rows.length, `${label}: rows`);
  const by = Object.fromEntries(got.columns.map((c) => [c.path, c.digest]));
  for (const g of v.equal) for (const p of g) assert.equal(by[p], by[g[0]], `${label}: equal_columns ${g.join(' = ')}`);
}

test('there are test vectors', () => {
  assert.ok(vectorFiles.length >= 7, `found ${vectorFiles.length} in ${vectorsDir}`);
});

for (const file of vectorFiles) {
  test(`vector ${file}: native rows`, () => {
    const v = loadVector(file);
    check(v, digestRows(v.leafList, v.rows), file);
  });
  for (const subject of Object.keys(SUBJECTS)) {
    for (const codec of Object.keys(CODECS)) {
      test(`vector ${file}: ${subject} ${codec} round trip`, () => {
        const v = loadVector(file);
        const s = SUBJECTS[subject];
        const { encode, decode } = pipeline(subject, codec);
        const decoded = decode(encode(s.natives(v.fields, v.rows)));
        check(v, digestRows(v.leafList, decoded, s.digestOpts), `${file} ${subject} ${codec}`);
      });
    }
  }
}

test('worked example (§9)', () => {
  const fields = parseFields([{ name: 'id', type: 'int64' }, { name: 'tags', type: { list: 'string' } }]);
  const rows = [{ id: 7, tags: ['a', ''] }, { id: null, tags: null }];
  const d = digestRows(leaves(fields), rows);
  assert.deepEqual(d.columns, [
    { path: 'id', digest: '1b6adcc983ad40868b3d1949eeaf3603' },
    { path: 'tags.[]', digest: '0dcc16f7a897b8ef8c0d1b617f194d02' },
  ]);
  assert.equal(d.table, '6b7ca86f5258e5bd6afcf20fa2fbc1dd');
});

test('zero rows digest to the SHA-256 of nothing', () => {
  const fields = parseFields([{ name: 'id', type: 'int64' }]);
  assert.equal(digestRows(leaves(fields), []).columns[0].digest, 'e3b0c44298fc1c149afbf4c8996fb924');
});

test('exact reader keeps 64-bit integers', () => {
  const fields = parseFields([{ name: 'a', type: 'int64' }, { name: 'b', type: 'uint64' }, { name: 't', type: 'timestamp[ns]' }]);
  const r = rowToNative(fields, parseExact('{"a":-9223372036854775808,"b":18446744073709551615,"t":1700000000000000001}'));
  assert.equal(r.a, -9223372036854775808n);
  assert.equal(r.b, 18446744073709551615n);
  assert.equal(r.t, 1700000000000000001n);
  assert.ok(parseExact('1.5') instanceof RawNumber);
});

test('decimal text', () => {
  assert.equal(formatDecimal('1.5', 2), '1.50');
  assert.equal(formatDecimal('-0.05', 2), '-0.05');
  assert.equal(formatDecimal('0', 2), '0.00');
  assert.equal(formatDecimal('-0', 2), '0.00');
  assert.equal(formatDecimal('123.45', 2), '123.45');
  assert.equal(formatDecimal('-700', -2), '-700'); // a negative scale: the value's text, unscaled -7
  assert.throws(() => formatDecimal('-750', -2));
  assert.equal(formatDecimal('00012', 0), '12');
  assert.throws(() => formatDecimal('1.234', 2));
});

test('hello announces what is implemented', () => {
  const h = helloLine();
  assert.equal(h.protocol, 1);
  assert.deepEqual(h.inputs, ['jsonl']);
  assert.deepEqual(h.subjects.map((s) => s.name), ['json', 'v8']);
  for (const s of h.subjects) assert.deepEqual(s.codecs, ['none', 'gzip:6', 'brotli:5']);
});
