#!/usr/bin/env node
// serbench runner for Node.js, protocol 1 — written from docs/runner-protocol.md alone.
//
//   node runner.mjs hello --protocol 1
//   node runner.mjs run --protocol 1 --work WORK
//
// Built-in modules only. Subjects: `json` (JSON.stringify / JSON.parse of row objects) and `v8`
// (node:v8 serialize / deserialize, the structured clone format). Codecs none, gzip:6, brotli:5
// (node:zlib). The runner has no Arrow reader: its hello asks for `inputs: ["jsonl"]` and it reads
// datasets/<dataset>/schema.json and data.jsonl with an exact JSON reader of its own (64-bit
// integers are read from the text, never through a double).
//
// The module also exports its pieces (schema parsing, the exact reader, the digest, the subjects)
// for test.mjs; the command line runs only when the file is the program.

import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import v8 from 'node:v8';
import vm from 'node:vm';
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const PROTOCOL = 1;
const RUNNER = 'node';

// ---------------------------------------------------------------------------------------------
// Output: one JSON object per line, written synchronously to fd 1 (so nothing waits in a buffer).

function writeAll(fd, s) {
  const buf = Buffer.from(s, 'utf8');
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      if (e.code === 'EAGAIN') continue; // a non-blocking pipe that is full: try again
      throw e;
    }
  }
}

function emit(obj) {
  writeAll(1, JSON.stringify(obj) + '\n');
}

function log(msg) {
  try { writeAll(2, `runner-node: ${msg}\n`); } catch { /* stderr gone: nothing to do */ }
}

function oneLine(e) {
  const s = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return s.replace(/\s*\n\s*/g, ' ').slice(0, 1000);
}

// ---------------------------------------------------------------------------------------------
// The exact JSON reader. Numbers come back as RawNumber (their text); everything else as
// JSON.parse would build it. Used for data.jsonl and the test vectors, never in timing.

export class RawNumber {
  constructor(text) { this.text = text; }
}

export function parseExact(text) {
  let i = 0;
  const n = text.length;
  const fail = (what) => { throw new SyntaxError(`JSON: ${what} at offset ${i}`); };
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++; else break;
    }
  };
  const string = () => {
    const start = i;
    i++; // opening quote
    let escaped = false;
    for (;;) {
      if (i >= n) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 34) break;
      if (c === 92) { escaped = true; i += 2; continue; }
      if (c < 0x20) fail('control character in string');
      i++;
    }
    i++; // closing quote
    return escaped ? JSON.parse(text.slice(start, i)) : text.slice(start + 1, i - 1);
  };
  const digits = () => {
    const s = i;
    while (i < n) { const c = text.charCodeAt(i); if (c >= 48 && c <= 57) i++; else break; }
    if (i === s) fail('digit expected');
  };
  const number = () => {
    const start = i;
    if (text.charCodeAt(i) === 45) i++;
    if (text.charCodeAt(i) === 48) i++; else digits();
    if (text.charCodeAt(i) === 46) { i++; digits(); }
    const e = text.charCodeAt(i);
    if (e === 101 || e === 69) {
      i++;
      const s = text.charCodeAt(i);
      if (s === 43 || s === 45) i++;
      digits();
    }
    return new RawNumber(text.slice(start, i));
  };
  const literal = (word, v) => {
    if (text.startsWith(word, i)) { i += word.length; return v; }
    return fail('unexpected token');
  };
  const value = () => {
    ws();
    if (i >= n) fail('unexpected end');
    const c = text.charCodeAt(i);
    if (c === 123) { // {
      i++;
      const o = {};
      ws();
      if (text.charCodeAt(i) === 125) { i++; return o; }
      for (;;) {
        ws();
        if (text.charCodeAt(i) !== 34) fail('object key expected');
        const k = string();
        ws();
        if (text.charCodeAt(i) !== 58) fail("':' expected");
        i++;
        const v = value();
        if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        else o[k] = v;
        ws();
        const d = text.charCodeAt(i++);
        if (d === 44) continue;
        if (d === 125) return o;
        i--; fail("',' or '}' expected");
      }
    }
    if (c === 91) { // [
      i++;
      const a = [];
      ws();
      if (text.charCodeAt(i) === 93) { i++; return a; }
      for (;;) {
        a.push(value());
        ws();
        const d = text.charCodeAt(i++);
        if (d === 44) continue;
        if (d === 93) return a;
        i--; fail("',' or ']' expected");
      }
    }
    if (c === 34) return string();
    if (c === 116) return literal('true', true);
    if (c === 102) return literal('false', false);
    if (c === 110) return literal('null', null);
    if (c === 45 || (c >= 48 && c <= 57)) return number();
    return fail('unexpected character');
  };
  const v = value();
  ws();
  if (i !== n) fail('trailing characters');
  return v;
}

// ---------------------------------------------------------------------------------------------
// Schema: the vector type grammar of runner-protocol.md §8, parsed into type objects.
//   {kind:'bool'|'int'|'uint'|'float'|'string'|'binary'|'timestamp'|'duration'|'time'|'date32'|
//          'date64'|'decimal'|'null'|'list'|'struct'|'map', ...}
// `wide` marks the integer-valued kinds that need 64 bits (read exactly, as BigInt when unsafe).

const UNITS = new Set(['s', 'ms', 'us', 'ns']);

export function parseType(t) {
  if (typeof t === 'string') {
    const s = t.trim();
    switch (s) {
      case 'bool': case 'boolean': return { kind: 'bool', name: s };
      case 'int8': case 'int16': case 'int32':
        return { kind: 'int', bits: Number(s.slice(3)), wide: false, name: s };
      case 'int64': return { kind: 'int', bits: 64, wide: true, name: s };
      case 'uint8': case 'uint16': case 'uint32':
        return { kind: 'uint', bits: Number(s.slice(4)), wide: false, name: s };
      case 'uint64': return { kind: 'uint', bits: 64, wide: true, name: s };
      case 'float16': case 'halffloat': return { kind: 'float', bits: 16, name: s };
      case 'float32': case 'float': return { kind: 'float', bits: 32, name: s };
      case 'float64': case 'double': return { kind: 'float', bits: 64, name: s };
      case 'string': case 'large_string': case 'string_view': case 'utf8': case 'large_utf8': case 'utf8_view':
        return { kind: 'string', name: s };
      case 'binary': case 'large_binary': case 'binary_view':
        return { kind: 'binary', name: s };
      case 'date32': return { kind: 'date32', wide: false, name: s };
      case 'date64': return { kind: 'date64', wide: true, name: s };
      case 'null': return { kind: 'null', name: s };
      default: break;
    }
    let m = /^fixed_size_binary\((\d+)\)$/.exec(s);
    if (m) return { kind: 'binary', size: Number(m[1]), name: s };
    m = /^decimal(128|256)\((\d+),\s*(-?\d+)\)$/.exec(s);
    if (m) return { kind: 'decimal', precision: Number(m[2]), scale: Number(m[3]), name: s };
    // timestamp[us], timestamp[us, tz=UTC], timestamp[us, UTC] — the zone is ignored (§7.3).
    m = /^(timestamp|duration|time32|time64)\[(s|ms|us|ns)(?:\s*,[^\]]*)?\]$/.exec(s);
    if (m) {
      const kind = m[1] === 'timestamp' ? 'timestamp' : m[1] === 'duration' ? 'duration' : 'time';
      const wide = m[1] !== 'time32';
      return { kind, unit: m[2], wide, name: s };
    }
    throw new Error(`unsupported type ${JSON.stringify(t)}`);
  }
  if (t && typeof t === 'object' && !Array.isArray(t)) {
    for (const k of ['list', 'large_list', 'list_view', 'large_list_view']) {
      if (k in t) return { kind: 'list', elem: parseType(t[k]), name: k };
    }
    if ('fixed_size_list' in t) {
      return { kind: 'list', elem: parseType(t.fixed_size_list), size: Number(t.size), name: 'fixed_size_list' };
    }
    if ('struct' in t) return { kind: 'struct', fields: parseFields(t.struct), name: 'struct' };
    if ('map' in t) {
      const key = parseType(t.map.key);
      const value = parseType(t.map.value);
      // A map is a list of structs of its key and value (§7.1); entries are {key, value} objects.
      return {
        kind: 'map', name: 'map', key, value,
        entry: { kind: 'struct', name: 'struct', fields: [{ name: 'key', type: key }, { name: 'value', type: value }] },
      };
    }
    if ('dictionary' in t) return parseType(t.dictionary); // digested as its values (§7.1)
    if ('extension' in t && 'storage' in t) return parseType(t.storage);
  }
  throw new Error(`unsupported type ${JSON.stringify(t)}`);
}

export function parseFields(arr) {
  if (!Array.isArray(arr)) throw new Error('a schema is a JSON array of fields');
  return arr.map((f) => {
    if (!f || typeof f.name !== 'string') throw new Error(`field without a name: ${JSON.stringify(f)}`);
    return { name: f.name, type: parseType(f.type), nullable: f.nullable !== false };
  });
}

// Leaf columns (§7.1): path strings and the steps that reach them from a row.
// A step is {field: name} (into a struct) or {list: true} (into a list's elements).
export function leaves(fields) {
  const out = [];
  const walk = (type, p, steps) => {
    if (type.kind === 'struct') {
      for (const f of type.fields) walk(f.type, `${p}.${f.name}`, [...steps, { field: f.name }]);
    } else if (type.kind === 'list') {
      walk(type.elem, `${p}.[]`, [...steps, { list: true }]);
    } else if (type.kind === 'map') {
      walk(type.entry, `${p}.[]`, [...steps, { list: true }]);
    } else {
      out.push({ path: p, steps, type });
    }
  };
  for (const f of fields) walk(f.type, f.name, [{ field: f.name }]);
  const seen = new Set();
  for (const l of out) {
    if (seen.has(l.path)) throw new Error(`two leaf columns with the path ${JSON.stringify(l.path)}`);
    seen.add(l.path);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Native rows. The base representation (the `v8` subject's objects):
//   bool → boolean; 8/16/32-bit integers, date32, time32 → Number; 64-bit integers (int64, uint64,
//   timestamp, duration, time64, date64, in the column's unit) → Number when a safe integer,
//   else BigInt; floats → Number (float32 rounded with Math.fround); strings → string;
//   binary → Buffer; decimal → its decimal text; list → Array; struct → object;
//   map → Array of {key, value}; dictionary → its values; null → null.

const TWO53 = 2n ** 53n;

function intFromRaw(v, type) {
  let text;
  if (v instanceof RawNumber) text = v.text;
  else if (typeof v === 'string' && /^-?\d+$/.test(v)) text = v;
  else throw new Error(`integer expected in a ${type.name} column, got ${JSON.stringify(v)}`);
  if (!/^-?\d+$/.test(text)) throw new Error(`integer expected in a ${type.name} column, got ${text}`);
  const b = BigInt(text);
  if (!type.wide) return Number(b);
  return (b < TWO53 && b > -TWO53) ? Number(b) : b;
}

function floatFromRaw(v, type) {
  let x;
  if (v instanceof RawNumber) x = Number(v.text);
  else if (typeof v === 'number') x = v;
  else if (v === 'NaN') x = NaN;
  else if (v === 'Infinity' || v === '+Infinity') x = Infinity;
  else if (v === '-Infinity') x = -Infinity;
  else if (v === '-0.0' || v === '-0') x = -0;
  else if (typeof v === 'string' && v.startsWith('bits:')) {
    const hex = v.slice(5);
    const dv = new DataView(new ArrayBuffer(8));
    if (hex.length === 16) { dv.setBigUint64(0, BigInt('0x' + hex)); x = dv.getFloat64(0); }
    else if (hex.length === 8) { dv.setUint32(0, Number.parseInt(hex, 16)); x = dv.getFloat32(0); }
    else if (hex.length === 4 && type.bits === 16) x = float16ToNumber(Number.parseInt(hex, 16));
    else throw new Error(`bad float bits ${JSON.stringify(v)}`);
  } else throw new Error(`float expected in a ${type.name} column, got ${JSON.stringify(v)}`);
  // data.jsonl writes a float32 as the shortest number that reads back to the same float32: read
  // it as a float32. (Math.fround of the nearest double; see README on double rounding.)
  return type.bits === 32 ? Math.fround(x) : x;
}

function float16ToNumber(h) {
  const s = (h & 0x8000) ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

export function toNative(type, v) {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'bool':
      if (typeof v !== 'boolean') throw new Error(`bool expected, got ${JSON.stringify(v)}`);
      return v;
    case 'int': case 'uint': case 'timestamp': case 'duration': case 'time': case 'date32': case 'date64':
      return intFromRaw(v, type);
    case 'float': return floatFromRaw(v, type);
    case 'string':
      if (typeof v !== 'string') throw new Error(`string expected, got ${JSON.stringify(v)}`);
      return v;
    case 'binary':
      if (typeof v !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(v)) throw new Error(`hex string expected in a binary column, got ${JSON.stringify(v)}`);
      return Buffer.from(v, 'hex');
    case 'decimal':
      if (v instanceof RawNumber) return v.text;
      if (typeof v !== 'string') throw new Error(`decimal string expected, got ${JSON.stringify(v)}`);
      return v;
    case 'null': return null;
    case 'list':
      if (!Array.isArray(v)) throw new Error(`array expected in a list column, got ${JSON.stringify(v)}`);
      return v.map((e) => toNative(type.elem, e));
    case 'map':
      if (!Array.isArray(v)) throw new Error('array of {key, value} expected in a map column');
      return v.map((e) => (e === null ? null : { key: toNative(type.key, e.key), value: toNative(type.value, e.value) }));
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v)) throw new Error('object expected in a struct column');
      const o = {};
      for (const f of type.fields) o[f.name] = toNative(f.type, v[f.name]);
      return o;
    }
    default: throw new Error(`no native form for ${type.name}`);
  }
}

export function rowToNative(fields, raw) {
  const o = {};
  for (const f of fields) {
    if (!(f.name in raw)) throw new Error(`row without field ${JSON.stringify(f.name)}`);
    o[f.name] = toNative(f.type, raw[f.name]);
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// The digest, version 1 (§7). A leaf's canonical value is taken from the decoded native objects;
// it accepts every representation the subjects produce (Number, BigInt or decimal text for
// integers; Number or the strings "NaN", "Infinity", "-Infinity", "-0" for floats; bytes, or
// base64 text from the json subject, for binary).

class StreamHash {
  constructor() {
    this.h = crypto.createHash('sha256');
    this.buf = Buffer.allocUnsafe(1 << 16);
    this.pos = 0;
  }
  room(n) {
    if (this.pos + n > this.buf.length) this.flush();
  }
  flush() {
    if (this.pos > 0) { this.h.update(this.buf.subarray(0, this.pos)); this.pos = 0; }
  }
  byte(b) { this.room(1); this.buf[this.pos++] = b; }
  u64Number(v) { // v: a safe integer, written as 8 bytes two's complement
    this.room(8);
    const lo = v % 4294967296;
    const loU = lo < 0 ? lo + 4294967296 : lo;
    const hi = (v - loU) / 4294967296;
    this.buf.writeUInt32LE(loU, this.pos);
    this.buf.writeInt32LE(hi | 0, this.pos + 4);
    this.pos += 8;
  }
  u64Big(b) { // b: BigInt within [-2^63, 2^64)
    this.room(8);
    this.buf.writeBigUInt64LE(BigInt.asUintN(64, b), this.pos);
    this.pos += 8;
  }
  f64(x) {
    this.room(8);
    if (Number.isNaN(x)) this.buf.writeBigUInt64LE(0x7ff8000000000000n, this.pos);
    else this.buf.writeDoubleLE(x, this.pos);
    this.pos += 8;
  }
  bytes(u8) {
    this.u64Number(u8.length);
    if (u8.length > 4096) { this.flush(); this.h.update(u8); return; }
    this.room(u8.length);
    this.buf.set(u8, this.pos);
    this.pos += u8.length;
  }
  str(s) {
    const len = Buffer.byteLength(s, 'utf8');
    this.u64Number(len);
    if (len > 4096) { this.flush(); this.h.update(Buffer.from(s, 'utf8')); return; }
    this.room(len);
    this.pos += this.buf.write(s, this.pos, len, 'utf8');
  }
  digest16() { this.flush(); return this.h.digest().subarray(0, 16); }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

function toBigInt(v, what) {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new Error(`${what}: not an integer: ${v}`);
    return BigInt(v);
  }
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  throw new Error(`${what}: not an integer: ${typeof v} ${String(v).slice(0, 40)}`);
}

function floorDiv(a, b) { // BigInt floor division, b > 0
  const q = a / b;
  return (a % b < 0n) ? q - 1n : q;
}

const TO_MICROS = { s: 1000000n, ms: 1000n, us: 1n };

function writeMicros(h, v, unit, what) {
  if (unit === 'us' && typeof v === 'number' && Number.isSafeInteger(v)) { h.u64Number(v); return; }
  const b = toBigInt(v, what);
  const us = unit === 'ns' ? floorDiv(b, 1000n) : b * TO_MICROS[unit];
  if (us < INT64_MIN || us > INT64_MAX) throw new Error(`${what}: ${b}${unit} is outside int64 microseconds`);
  h.u64Big(us);
}

function floatOf(v, what) {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  if (v === '-0' || v === '-0.0') return -0;
  throw new Error(`${what}: not a float: ${JSON.stringify(v)}`);
}

// Plain decimal text with exactly `scale` fractional digits (§7.3).
export function formatDecimal(v, scale, what = 'decimal') {
  if (typeof v === 'number') v = String(v);
  if (typeof v === 'bigint') v = v.toString();
  if (typeof v !== 'string') throw new Error(`${what}: not a decimal: ${typeof v}`);
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(v.trim());
  if (!m || (m[2] === '' && (m[3] === undefined || m[3] === ''))) throw new Error(`${what}: not a decimal: ${JSON.stringify(v)}`);
  const neg = m[1] === '-';
  let digits = (m[2] || '') + (m[3] || '');
  let exp = -(m[3] || '').length + (m[4] ? Number(m[4]) : 0); // value = digits × 10^exp
  // unscaled at `scale`: value × 10^scale = digits × 10^(exp + scale)
  const shift = exp + scale;
  let unscaled;
  if (shift >= 0) unscaled = BigInt(digits || '0') * 10n ** BigInt(shift);
  else {
    const cut = -shift;
    const keep = digits.length > cut ? digits.slice(0, digits.length - cut) : '';
    const dropped = digits.length > cut ? digits.slice(digits.length - cut) : digits;
    if (/[1-9]/.test(dropped)) throw new Error(`${what}: ${v} has more than ${scale} fractional digits`);
    unscaled = BigInt(keep || '0');
  }
  const sign = neg && unscaled !== 0n ? '-' : '';
  let s = (unscaled < 0n ? -unscaled : unscaled).toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    return `${sign}${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  }
  if (scale < 0 && unscaled !== 0n) s += '0'.repeat(-scale);
  return sign + s;
}

function writeLeaf(h, type, v, opts, what) {
  switch (type.kind) {
    case 'bool':
      if (typeof v !== 'boolean') throw new Error(`${what}: not a bool`);
      h.byte(v ? 1 : 0); return;
    case 'int': case 'date32': {
      if (typeof v === 'number' && Number.isSafeInteger(v)) { h.u64Number(v); return; }
      const b = toBigInt(v, what);
      if (b < INT64_MIN || b > INT64_MAX) throw new Error(`${what}: ${b} is outside int64`);
      h.u64Big(b); return;
    }
    case 'uint': {
      if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) { h.u64Number(v); return; }
      const b = toBigInt(v, what);
      if (b < 0n || b > UINT64_MAX) throw new Error(`${what}: ${b} is outside uint64`);
      h.u64Big(b); return;
    }
    case 'timestamp': case 'duration': case 'time':
      writeMicros(h, v, type.unit, what); return;
    case 'date64': {
      const b = toBigInt(v, what);
      h.u64Big(floorDiv(b, 86400000n)); return;
    }
    case 'float':
      h.f64(floatOf(v, what)); return;
    case 'string':
      if (typeof v === 'string') { h.str(v); return; }
      if (v instanceof Uint8Array) { h.bytes(v); return; }
      throw new Error(`${what}: not a string`);
    case 'binary':
      if (v instanceof Uint8Array) { h.bytes(v); return; }
      if (ArrayBuffer.isView(v)) { h.bytes(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)); return; }
      if (typeof v === 'string' && opts.binaryAs === 'base64') { h.bytes(Buffer.from(v, 'base64')); return; }
      throw new Error(`${what}: not bytes`);
    case 'decimal':
      h.str(formatDecimal(v, type.scale, what)); return;
    case 'null':
      throw new Error(`${what}: a value in a null column`);
    default:
      throw new Error(`${what}: type ${type.name} has no digest in version 1`);
  }
}

function encPath(h, v, steps, i, leaf, opts) {
  if (v === null || v === undefined) { h.byte(0); return; }
  h.byte(1);
  if (i === steps.length) { writeLeaf(h, leaf.type, v, opts, leaf.path); return; }
  const st = steps[i];
  if (st.list) {
    if (!Array.isArray(v)) throw new Error(`${leaf.path}: not an array`);
    h.u64Number(v.length);
    for (let k = 0; k < v.length; k++) encPath(h, v[k], steps, i + 1, leaf, opts);
  } else {
    if (typeof v !== 'object') throw new Error(`${leaf.path}: not an object at ${st.field}`);
    encPath(h, v[st.field], steps, i + 1, leaf, opts);
  }
}

// Digest of rows (an array of row objects) over the given leaves. Returns the verify line's shape.
export function digestRows(leafList, rows, opts = {}) {
  const columns = [];
  for (const leaf of leafList) {
    const h = new StreamHash();
    const top = leaf.steps[0].field;
    const rest = leaf.steps;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      const v = row === null || row === undefined ? undefined : row[top];
      if (row === null || row === undefined) throw new Error(`row ${r} is null`);
      encPath(h, v, rest, 1, leaf, opts);
    }
    columns.push({ path: leaf.path, raw: h.digest16() });
  }
  return {
    rows: rows.length,
    table: tableDigest(columns),
    columns: columns.map((c) => ({ path: c.path, digest: c.raw.toString('hex') })),
  };
}

export function tableDigest(columns) { // [{path, raw (16 bytes) | digest (hex)}]
  const cols = columns.map((c) => ({ p: Buffer.from(c.path, 'utf8'), d: c.raw ?? Buffer.from(c.digest, 'hex') }));
  cols.sort((a, b) => Buffer.compare(a.p, b.p));
  const h = crypto.createHash('sha256');
  const len = Buffer.alloc(8);
  for (const c of cols) {
    len.writeBigUInt64LE(BigInt(c.p.length));
    h.update(len); h.update(c.p); h.update(c.d);
  }
  return h.digest().subarray(0, 16).toString('hex');
}

// ---------------------------------------------------------------------------------------------
// Subjects and codecs.

// The json subject's objects: JSON has no BigInt, no bytes and no non-finite floats, so a value
// outside a safe integer is a decimal string, bytes are base64 text, NaN/±Infinity/-0 are the
// strings "NaN", "Infinity", "-Infinity", "-0". Everything else as the base representation.
function toJsonValue(type, v) {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'float':
      if (Number.isFinite(v) && !Object.is(v, -0)) return v;
      return Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : '-0';
    case 'int': case 'uint': case 'timestamp': case 'duration': case 'time': case 'date32': case 'date64':
      return typeof v === 'bigint' ? v.toString() : v;
    case 'binary': return Buffer.from(v).toString('base64');
    case 'list': return v.map((e) => toJsonValue(type.elem, e));
    case 'map': return v.map((e) => (e === null ? null : { key: toJsonValue(type.key, e.key), value: toJsonValue(type.value, e.value) }));
    case 'struct': {
      const o = {};
      for (const f of type.fields) o[f.name] = toJsonValue(f.type, v[f.name]);
      return o;
    }
    default: return v;
  }
}

export const SUBJECTS = {
  json: {
    descriptor: {
      name: 'json', format: 'json', library: 'JSON (ECMAScript built-in, V8)', version: process.versions.v8,
      labels: { codegen: 'no', reuse: 'no', zero_copy: 'no', time_precision: 'ns' },
    },
    // native rows for this subject, built from the base rows outside timing
    natives(fields, baseRows) {
      return baseRows.map((r) => {
        const o = {};
        let same = true;
        for (const f of fields) {
          const v = toJsonValue(f.type, r[f.name]);
          if (v !== r[f.name]) same = false;
          o[f.name] = v;
        }
        return same ? r : o; // a row JSON can hold as it is is shared with the base rows
      });
    },
    encode: (rows) => Buffer.from(JSON.stringify(rows), 'utf8'),
    decode: (buf) => JSON.parse(buf.toString('utf8')),
    digestOpts: { binaryAs: 'base64' },
  },
  v8: {
    descriptor: {
      name: 'v8', format: 'v8-serialize', library: 'node:v8 serialize/deserialize (V8 ValueSerializer)', version: process.versions.v8,
      labels: { codegen: 'no', reuse: 'no', zero_copy: 'no', time_precision: 'ns' },
    },
    natives(fields, baseRows) { return baseRows; },
    encode: (rows) => v8.serialize(rows),
    decode: (buf) => v8.deserialize(buf),
    digestOpts: {},
  },
};

const Z = zlib.constants;
export const CODECS = {
  none: { compress: null, decompress: null },
  'gzip:6': {
    compress: (b) => zlib.gzipSync(b, { level: 6 }),
    decompress: (b) => zlib.gunzipSync(b),
  },
  'brotli:5': {
    compress: (b) => zlib.brotliCompressSync(b, { params: { [Z.BROTLI_PARAM_QUALITY]: 5, [Z.BROTLI_PARAM_SIZE_HINT]: b.length } }),
    decompress: (b) => zlib.brotliDecompressSync(b),
  },
};
const CODEC_NAMES = Object.keys(CODECS);

// encode/decode functions of one subject and codec
export function pipeline(subjectName, codecName) {
  const s = SUBJECTS[subjectName];
  const c = CODECS[codecName];
  const encode = c.compress ? (rows) => c.compress(s.encode(rows)) : s.encode;
  const decode = c.decompress ? (buf) => s.decode(c.decompress(buf)) : s.decode;
  return { encode, decode };
}

export function helloLine() {
  const ops = ['encode', 'decode'];
  return {
    type: 'hello', protocol: PROTOCOL, runner: RUNNER, language: 'javascript',
    runtime: process.release.name, runtime_version: process.version,
    vm_flags: [...process.execArgv, ...(process.env.NODE_OPTIONS ? [`NODE_OPTIONS=${process.env.NODE_OPTIONS}`] : [])],
    os: process.platform, arch: process.arch, alloc: 'none',
    inputs: ['jsonl'],
    subjects: Object.values(SUBJECTS).map((s) => ({
      ...s.descriptor, ops, codecs: CODEC_NAMES,
      codec_library: `node:zlib (zlib ${process.versions.zlib}, brotli ${process.versions.brotli})`,
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Garbage collection between samples, outside timing: gc exposed at run time, called when the
// heap in use grew by 16 MiB since the last collection.

let gcFn = null;
function setupGc() {
  try {
    v8.setFlagsFromString('--expose-gc');
    gcFn = vm.runInNewContext('gc');
  } catch { gcFn = null; }
}
let heapAfterGc = 0;
function maybeGc() {
  if (!gcFn) return;
  const used = v8.getHeapStatistics().used_heap_size;
  if (used - heapAfterGc >= 16 * 1024 * 1024) {
    gcFn();
    heapAfterGc = v8.getHeapStatistics().used_heap_size;
  }
}

// ---------------------------------------------------------------------------------------------
// The run.

let sink = 0; // every iteration's result is folded in here (§4.4)
let stopping = false; // SIGTERM: stop at the next sample boundary

class CaseError extends Error {
  constructor(phase, message) { super(message); this.phase = phase; }
}

function readJsonFile(p) { return JSON.parse(fs.readFileSync(p, 'utf8')); }

function loadDataset(work, name) {
  const dir = path.join(work, 'datasets', name);
  if (name === '' || name.includes('..') || name.includes('/')) throw new Error(`bad dataset name ${JSON.stringify(name)}`);
  const fields = parseFields(readJsonFile(path.join(dir, 'schema.json')));
  const leafList = leaves(fields);
  const jsonl = path.join(dir, 'data.jsonl');
  if (!fs.existsSync(jsonl)) {
    throw new Error(`${jsonl} is missing: this runner has no Arrow reader and asked for inputs ["jsonl"] in its hello`);
  }
  const text = fs.readFileSync(jsonl, 'utf8');
  const rows = [];
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    lineNo++;
    if (line.trim() !== '') {
      try {
        rows.push(rowToNative(fields, parseExact(line)));
      } catch (e) {
        throw new Error(`${name}/data.jsonl line ${lineNo}: ${e.message}`);
      }
    }
    start = end + 1;
  }
  return { name, fields, leafList, rows, natives: new Map() };
}

function parseArgs(argv) {
  const out = { cmd: argv[0], protocol: undefined, work: undefined, bad: null };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const key = eq > 0 ? a.slice(0, eq) : a;
    const val = () => (eq > 0 ? a.slice(eq + 1) : argv[++i]);
    if (key === '--protocol') out.protocol = val();
    else if (key === '--work') out.work = val();
    else out.bad = `unknown argument ${JSON.stringify(a)}`;
  }
  if (out.protocol === undefined) out.protocol = process.env.SERBENCH_PROTOCOL;
  if (out.work === undefined) out.work = process.env.SERBENCH_WORK;
  return out;
}

const USAGE = 'usage: node runner.mjs hello --protocol 1 | node runner.mjs run --protocol 1 --work WORK';

export async function main(argv) {
  const args = parseArgs(argv);
  if ((args.cmd !== 'hello' && args.cmd !== 'run') || args.bad) {
    log(`${args.bad ?? `unknown command ${JSON.stringify(args.cmd ?? '')}`}\n${USAGE}`);
    return 2;
  }
  emit(helloLine());
  if (String(args.protocol) !== String(PROTOCOL)) {
    const msg = args.protocol === undefined
      ? `no protocol requested (--protocol or SERBENCH_PROTOCOL), this runner speaks ${PROTOCOL}`
      : `protocol ${args.protocol} requested, this runner speaks ${PROTOCOL}`;
    emit({ type: 'error', phase: 'setup', message: msg });
    emit({ type: 'end', cases: 0, failed: 0 });
    return 2;
  }
  if (args.cmd === 'hello') {
    emit({ type: 'end', cases: 0, failed: 0 });
    return 0;
  }
  if (!args.work) {
    emit({ type: 'error', phase: 'setup', message: `no work directory (--work or SERBENCH_WORK). ${USAGE}` });
    emit({ type: 'end', cases: 0, failed: 0 });
    return 2;
  }
  return run(path.resolve(args.work));
}

async function run(work) {
  let runCfg;
  let cases;
  try {
    runCfg = readJsonFile(path.join(work, 'run.json'));
    cases = fs.readFileSync(path.join(work, 'cases.jsonl'), 'utf8')
      .split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  } catch (e) {
    emit({ type: 'error', phase: 'setup', message: `unreadable work directory ${work}: ${oneLine(e)}` });
    emit({ type: 'end', cases: 0, failed: 0 });
    return 1;
  }
  const cfg = {
    benchtime: BigInt(Math.max(1, Math.trunc(Number(runCfg.benchtime_ns) || 1e9))),
    maxIters: Math.max(1, Math.trunc(Number(runCfg.max_iters) || 1e9)),
    count: Math.max(1, Math.trunc(Number(runCfg.count) || 1)),
  };

  setupGc();
  process.on('SIGTERM', () => { stopping = true; });

  // Pre-scan: which cases' encoded bytes a copy row needs, and the last case of each dataset.
  const keepBytesOf = new Set(cases.filter((c) => c.op === 'copy' && c.limit_of).map((c) => c.limit_of));
  const lastUse = new Map(); // dataset → index of the last case naming it
  const lastCopy = new Map(); // limit_of → index of the last copy case naming it
  cases.forEach((c, i) => {
    lastUse.set(c.dataset, i);
    if (c.op === 'copy' && c.limit_of) lastCopy.set(c.limit_of, i);
  });

  // Groups: contiguous lines with the same non-empty group; an empty group is a group of one.
  const groups = [];
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i];
    const prev = groups[groups.length - 1];
    if (c.group && prev && prev.name === c.group) prev.members.push({ c, index: i });
    else groups.push({ name: c.group || '', members: [{ c, index: i }] });
  }

  const state = { work, cfg, datasets: new Map(), bytes: new Map(), keepBytesOf, done: 0, failed: 0 };
  for (const g of groups) {
    if (stopping) break;
    await runGroup(state, g);
    // drop datasets no later case names
    const lastIndex = g.members[g.members.length - 1].index;
    for (const [name] of state.datasets) if ((lastUse.get(name) ?? -1) <= lastIndex) state.datasets.delete(name);
    for (const [id] of state.bytes) if ((lastCopy.get(id) ?? -1) <= lastIndex) state.bytes.delete(id);
  }
  if (stopping) {
    emit({ type: 'error', phase: 'sample', message: 'interrupted (SIGTERM): stopped at a sample boundary' });
    emit({ type: 'end', cases: state.done, failed: state.failed });
    return 1;
  }
  emit({ type: 'end', cases: state.done, failed: state.failed });
  return 0;
}

function fail(state, m, phase, message) {
  emit({ type: 'error', case: m.c.id, phase, message });
  m.failed = true;
  state.failed++;
}

function getDataset(state, name) {
  let ds = state.datasets.get(name);
  if (!ds) {
    ds = loadDataset(state.work, name);
    state.datasets.set(name, ds);
  }
  return ds;
}

// Setup (§4.1): returns the member's op closure and verify result. Throws CaseError.
function setupMember(state, m) {
  const c = m.c;
  const params = c.params && typeof c.params === 'object' ? Object.keys(c.params) : [];
  const codec = c.codec === '' || c.codec === undefined ? 'none' : c.codec;
  if (c.op === 'copy') {
    if (c.subject !== 'copy') throw new CaseError('setup', `op copy is for subject copy, not ${c.subject}`);
    if (params.length) throw new CaseError('setup', `unknown params key ${JSON.stringify(params[0])} for copy`);
    const src = state.bytes.get(c.limit_of);
    if (!src) throw new CaseError('setup', `copy: no encoded bytes of limit_of case ${JSON.stringify(c.limit_of)} (unknown, or it failed before its bytes existed)`);
    const dst = Buffer.allocUnsafe(src.length);
    m.bytesPerOp = src.length;
    m.runIters = (n) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) { src.copy(dst, 0, 0, src.length); sink += dst.length; }
      const t1 = process.hrtime.bigint();
      if (src.length) sink ^= dst[src.length - 1];
      return t1 - t0;
    };
    m.verify = () => {
      src.copy(dst, 0, 0, src.length);
      if (!dst.equals(src)) return { ok: false, reason: 'copy differs from its source' };
      return { ok: true, encoded_bytes: src.length, digest: null };
    };
    return;
  }
  const subject = SUBJECTS[c.subject];
  if (!subject) throw new CaseError('setup', `unknown subject ${JSON.stringify(c.subject)} (this runner has ${Object.keys(SUBJECTS).join(', ')})`);
  if (c.op !== 'encode' && c.op !== 'decode') throw new CaseError('setup', `unknown op ${c.op} for subject ${c.subject} (it supports encode, decode)`);
  if (!CODECS[codec]) throw new CaseError('setup', `unknown codec ${JSON.stringify(c.codec)} for subject ${c.subject} (it supports ${CODEC_NAMES.join(', ')})`);
  if (params.length) throw new CaseError('setup', `unknown params key ${JSON.stringify(params[0])} for subject ${c.subject}`);

  let ds;
  try { ds = getDataset(state, c.dataset); } catch (e) { throw new CaseError('setup', `dataset ${c.dataset}: ${oneLine(e)}`); }
  let rows = ds.natives.get(c.subject);
  if (!rows) { rows = subject.natives(ds.fields, ds.rows); ds.natives.set(c.subject, rows); }
  const { encode, decode } = pipeline(c.subject, codec);

  let bytes;
  try { bytes = encode(rows); } catch (e) { bytes = null; m.setupEncodeError = e; }
  m.verify = () => {
    if (!bytes) return { ok: false, reason: `encode failed: ${oneLine(m.setupEncodeError)}` };
    let decoded;
    try { decoded = decode(bytes); } catch (e) { return { ok: false, reason: `decode failed: ${oneLine(e)}` }; }
    if (!Array.isArray(decoded)) return { ok: false, reason: `decode returned ${typeof decoded}, not an array of rows` };
    if (decoded.length !== ds.rows.length) return { ok: false, reason: `decoded ${decoded.length} rows, the dataset has ${ds.rows.length}` };
    let digest;
    try { digest = digestRows(ds.leafList, decoded, subject.digestOpts); } catch (e) { throw new CaseError('verify', `digest: ${oneLine(e)}`); }
    return { ok: true, encoded_bytes: bytes.length, digest };
  };
  m.keepBytes = () => { if (bytes && state.keepBytesOf.has(c.id)) state.bytes.set(c.id, bytes); };
  if (c.op === 'encode') {
    m.bytesPerOp = bytes ? bytes.length : 0;
    m.runIters = (n) => {
      let acc = 0;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) acc += encode(rows).length;
      const t1 = process.hrtime.bigint();
      sink += acc;
      return t1 - t0;
    };
  } else {
    m.bytesPerOp = bytes ? bytes.length : 0;
    m.runIters = (n) => {
      let acc = 0;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) acc += decode(bytes).length;
      const t1 = process.hrtime.bigint();
      sink += acc;
      return t1 - t0;
    };
  }
}

// testing.B's rule (§4.3 step 2). Returns {n, firstSample|null}.
function calibrate(cfg, m) {
  const bt = cfg.benchtime;
  const maxIters = BigInt(cfg.maxIters);
  let n = 1n;
  let elapsed = m.runIters(1);
  const firstElapsed = elapsed;
  while (elapsed < bt && n < maxIters) {
    let next = (bt * n) / (elapsed > 1n ? elapsed : 1n);
    next += next / 5n;
    if (next > 100n * n) next = 100n * n;
    if (next < n + 1n) next = n + 1n;
    if (next > maxIters) next = maxIters;
    n = next;
    elapsed = m.runIters(Number(n));
  }
  let firstSample = null;
  if (n === 1n) {
    if (m.c.no_warmup && firstElapsed >= bt) firstSample = firstElapsed;
    else if (elapsed < 10n * bt) m.runIters(1); // the only run was the first: warm once more, untimed
  }
  return { n: Number(n), firstSample };
}

async function runGroup(state, g) {
  const { cfg } = state;
  const members = g.members.map(({ c }) => ({
    c, failed: false, samples: 0, totalNs: 0,
    count: Math.trunc(Number(c.count)) > 0 ? Math.trunc(Number(c.count)) : cfg.count,
    minCount: Math.trunc(Number(c.min_count)) > 0 ? Math.trunc(Number(c.min_count)) : 1,
    budget: Math.trunc(Number(c.budget_ns)) > 0 ? Math.trunc(Number(c.budget_ns)) : 0,
    perRound: Math.trunc(Number(c.per_round)) > 1 ? Math.trunc(Number(c.per_round)) : 1,
  }));
  state.done += members.length;

  // 1. setup and verify, in order
  for (const m of members) {
    try {
      setupMember(state, m);
    } catch (e) {
      fail(state, m, e instanceof CaseError ? e.phase : 'setup', e instanceof CaseError ? e.message : oneLine(e));
      continue;
    }
    let v;
    try {
      v = m.verify();
    } catch (e) {
      fail(state, m, 'verify', e instanceof CaseError ? e.message : oneLine(e));
      continue;
    }
    if (v.ok) {
      emit({ type: 'verify', case: m.c.id, ok: true, encoded_bytes: v.encoded_bytes, digest: v.digest });
      if (m.keepBytes) m.keepBytes();
    } else {
      emit({ type: 'verify', case: m.c.id, ok: false, reason: v.reason });
      m.failed = true;
      state.failed++;
    }
  }

  // 2. calibrate every member in turn
  for (const m of members) {
    if (m.failed) continue;
    if (stopping) return;
    await yieldLoop();
    try {
      const r = calibrate(cfg, m);
      m.n = r.n;
      m.pending = r.firstSample; // no_warmup: the first run is the first sample (round 1)
    } catch (e) {
      fail(state, m, 'calibrate', oneLine(e));
    }
  }

  const wants = (m) => !m.failed && m.samples < m.count && (m.samples < m.minCount || m.budget === 0 || m.totalNs < m.budget);
  const sampleLine = (m, round, order, elapsedNs) => {
    const ns = Number(elapsedNs);
    m.samples++;
    m.totalNs += ns;
    emit({
      type: 'sample', case: m.c.id, round, order, iters: m.n, ns_per_op: ns / m.n,
      bytes_per_op: m.bytesPerOp, alloc_bytes_per_op: null, allocs_per_op: null,
    });
  };

  // 3. rounds
  const count = members.length;
  let lastSampled = -1;
  for (let round = 0; ; round++) {
    const order = [];
    for (let k = 0; k < count; k++) {
      const i = (k + round) % count;
      if (wants(members[i])) order.push(i);
    }
    if (order.length === 0) break;
    if (order.length > 1 && order[0] === lastSampled) order.push(order.shift());
    for (let pos = 0; pos < order.length; pos++) {
      const m = members[order[pos]];
      if (stopping) return;
      await yieldLoop(); // lets a SIGTERM handler run between samples
      if (stopping) return;
      try {
        let fresh = true;
        if (m.pending !== null && m.pending !== undefined) {
          sampleLine(m, round + 1, pos, m.pending);
          m.pending = null;
          fresh = false;
        }
        if (m.perRound > 1) {
          if (fresh) m.runIters(m.n); // untimed run before the burst
          for (let b = fresh ? 0 : 1; b < m.perRound && wants(m); b++) {
            maybeGc();
            sampleLine(m, round + 1, pos, m.runIters(m.n));
          }
        } else if (fresh) {
          maybeGc();
          sampleLine(m, round + 1, pos, m.runIters(m.n));
        }
      } catch (e) {
        fail(state, m, 'sample', oneLine(e));
      }
      lastSampled = order[pos];
    }
  }
  if (sink === 0.5) log('unreachable'); // keeps `sink` observable
}

// ---------------------------------------------------------------------------------------------

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (e) => {
      log(`crashed: ${e && e.stack ? e.stack : e}`);
      try {
        emit({ type: 'error', phase: 'setup', message: `runner failed: ${oneLine(e)}` });
        emit({ type: 'end', cases: 0, failed: 0 });
      } catch { /* stdout gone */ }
      process.exitCode = 1;
    },
  );
}
