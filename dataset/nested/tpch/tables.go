package tpch

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
)

// nationRow is a nation with its region as an index into Tables.regions.
type nationRow struct {
	name, comment string
	region        int
}

// partyRow is a customer or supplier with its nation as an index into
// Tables.nations; segment is empty for suppliers.
type partyRow struct {
	name, address, phone, segment, comment string
	nation                                 int
	balance                                int64 // cents
}

// orderRow is an order with its customer as an index into Tables.customers.
type orderRow struct {
	customer                               int
	status, date, priority, clerk, comment string
	totalPrice                             int64 // cents
	shipPriority                           int32
}

// lineRow is a line item with indexes into Tables.orders, parts and suppliers.
type lineRow struct {
	order, part, supplier                        int
	lineNumber, quantity                         int32
	extendedPrice, discount, tax                 int64 // cents, hundredths, hundredths
	returnFlag, lineStatus, shipDate, commitDate string
	receiptDate, shipInstruct, shipMode, comment string
}

// Tables are the normalised TPC-H rows the line items are joined from: what
// the cache file holds. A Tables is read-only after Load and safe for
// concurrent use.
type Tables struct {
	regions   []Region
	nations   []nationRow
	suppliers []partyRow
	customers []partyRow
	parts     []Part
	orders    []orderRow
	lines     []lineRow
}

// Len returns the number of line items.
func (t *Tables) Len() int { return len(t.lines) }

// nation returns nation i with its region.
func (t *Tables) nation(i int) Nation {
	n := &t.nations[i]
	return Nation{Name: n.name, Region: t.regions[n.region], Comment: n.comment}
}

// cents converts an amount in hundredths to float64 as dbgen prints it.
func cents(c int64) float64 { return float64(c) / 100 }

// At fills r with line item i (0-based), which must be below Len.
func (t *Tables) At(i int, r *LineItem) {
	l := &t.lines[i]
	o := &t.orders[l.order]
	c := &t.customers[o.customer]
	s := &t.suppliers[l.supplier]
	*r = LineItem{
		Order: Order{
			Customer: Customer{Name: c.name, Address: c.address, Nation: t.nation(c.nation), Phone: c.phone,
				AccountBalance: cents(c.balance), MarketSegment: c.segment, Comment: c.comment},
			OrderStatus: o.status, TotalPrice: cents(o.totalPrice), OrderDate: o.date,
			OrderPriority: o.priority, Clerk: o.clerk, ShipPriority: o.shipPriority, Comment: o.comment,
		},
		Part: t.parts[l.part],
		Supplier: Supplier{Name: s.name, Address: s.address, Nation: t.nation(s.nation), Phone: s.phone,
			AccountBalance: cents(s.balance), Comment: s.comment},
		LineNumber: l.lineNumber, Quantity: l.quantity,
		ExtendedPrice: cents(l.extendedPrice), Discount: cents(l.discount), Tax: cents(l.tax),
		ReturnFlag: l.returnFlag, LineStatus: l.lineStatus,
		ShipDate: l.shipDate, CommitDate: l.commitDate, ReceiptDate: l.receiptDate,
		ShipInstruct: l.shipInstruct, ShipMode: l.shipMode, Comment: l.comment,
	}
}

// All yields line items 0..n-1 (n is capped at Len) one at a time. The
// yielded pointer refers to one reused LineItem, valid only until the next
// iteration.
func (t *Tables) All(n int) iter.Seq2[int, *LineItem] {
	n = min(n, t.Len())
	return func(yield func(int, *LineItem) bool) {
		var r LineItem
		for i := range n {
			t.At(i, &r)
			if !yield(i, &r) {
				return
			}
		}
	}
}

// Slice returns line items 0..n-1 (n is capped at Len). The records share
// their strings with t.
func (t *Tables) Slice(n int) []LineItem {
	out := make([]LineItem, min(n, t.Len()))
	for i := range out {
		t.At(i, &out[i])
	}
	return out
}

// Prefix returns tables holding only the first n line items (n is capped at
// Len), sharing rows with t.
func (t *Tables) Prefix(n int) *Tables {
	p := *t
	p.lines = p.lines[:min(n, len(p.lines))]
	return &p
}

// fileMagic starts a cache file; the digit is the encoding's version.
const fileMagic = "serbench-tpch-tables-1\n"

// writer appends the cache encoding to a buffer.
type writer struct{ b []byte }

func (w *writer) int(v int64) { w.b = binary.AppendVarint(w.b, v) }
func (w *writer) str(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

// Marshal returns the cache file encoding of t: a magic line, the tables with
// varint integers and length-prefixed strings, and the SHA-256 of everything
// before it.
func (t *Tables) Marshal() []byte {
	w := &writer{b: []byte(fileMagic)}
	w.int(int64(len(t.regions)))
	for _, r := range t.regions {
		w.str(r.Name)
		w.str(r.Comment)
	}
	w.int(int64(len(t.nations)))
	for _, n := range t.nations {
		w.str(n.name)
		w.str(n.comment)
		w.int(int64(n.region))
	}
	for _, ps := range [][]partyRow{t.suppliers, t.customers} {
		w.int(int64(len(ps)))
		for _, p := range ps {
			w.str(p.name)
			w.str(p.address)
			w.str(p.phone)
			w.str(p.segment)
			w.str(p.comment)
			w.int(int64(p.nation))
			w.int(p.balance)
		}
	}
	w.int(int64(len(t.parts)))
	for _, p := range t.parts {
		w.str(p.Name)
		w.str(p.Manufacturer)
		w.str(p.Brand)
		w.str(p.Type)
		w.int(int64(p.Size))
		w.str(p.Container)
		w.int(int64(math.Round(p.RetailPrice * 100)))
		w.str(p.Comment)
	}
	w.int(int64(len(t.orders)))
	for _, o := range t.orders {
		w.int(int64(o.customer))
		w.str(o.status)
		w.str(o.date)
		w.str(o.priority)
		w.str(o.clerk)
		w.str(o.comment)
		w.int(o.totalPrice)
		w.int(int64(o.shipPriority))
	}
	w.int(int64(len(t.lines)))
	for _, l := range t.lines {
		w.int(int64(l.order))
		w.int(int64(l.part))
		w.int(int64(l.supplier))
		w.int(int64(l.lineNumber))
		w.int(int64(l.quantity))
		w.int(l.extendedPrice)
		w.int(l.discount)
		w.int(l.tax)
		for _, s := range [...]string{l.returnFlag, l.lineStatus, l.shipDate, l.commitDate,
			l.receiptDate, l.shipInstruct, l.shipMode, l.comment} {
			w.str(s)
		}
	}
	sum := sha256.Sum256(w.b)
	return append(w.b, sum[:]...)
}

// reader decodes the cache encoding, remembering the first error. Short
// strings (flags, dates, modes, names of few values) are interned so that the
// loaded tables hold one copy of each.
type reader struct {
	b      []byte
	err    error
	intern map[string]string
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("truncated or corrupt %s at %d bytes from the end", what, len(r.b))
	}
}

func (r *reader) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("integer")
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

// index reads an index below limit.
func (r *reader) index(limit int) int {
	v := r.int()
	if v < 0 || v >= int64(limit) {
		r.fail(fmt.Sprintf("index %d (limit %d)", v, limit))
		return 0
	}
	return int(v)
}

// count reads a row count, bounded by the bytes left (every row takes at
// least one byte).
func (r *reader) count() int {
	v := r.int()
	if v < 0 || v > int64(len(r.b)) {
		r.fail(fmt.Sprintf("row count %d", v))
		return 0
	}
	return int(v)
}

func (r *reader) str() string {
	l, n := binary.Uvarint(r.b)
	if n <= 0 || l > uint64(len(r.b)-n) {
		r.fail("string")
		r.b = nil
		return ""
	}
	b := r.b[n : n+int(l)]
	r.b = r.b[n+int(l):]
	if len(b) <= 16 {
		if s, ok := r.intern[string(b)]; ok {
			return s
		}
		s := string(b)
		r.intern[s] = s
		return s
	}
	return string(b)
}

// errChecksum reports a cache file whose checksum does not match its contents.
var errChecksum = errors.New("checksum mismatch")

// Unmarshal decodes a cache file written by Marshal, verifying its magic,
// checksum, indexes and length.
func Unmarshal(data []byte) (*Tables, error) {
	if !bytes.HasPrefix(data, []byte(fileMagic)) || len(data) < len(fileMagic)+sha256.Size {
		return nil, errors.New("tpch: not a tables file (bad magic or too short)")
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("tpch: tables file: %w", errChecksum)
	}
	r := &reader{b: body[len(fileMagic):], intern: make(map[string]string)}
	t := &Tables{}
	t.regions = make([]Region, r.count())
	for i := range t.regions {
		t.regions[i] = Region{Name: r.str(), Comment: r.str()}
	}
	t.nations = make([]nationRow, r.count())
	for i := range t.nations {
		t.nations[i] = nationRow{name: r.str(), comment: r.str(), region: r.index(len(t.regions))}
	}
	for _, ps := range []*[]partyRow{&t.suppliers, &t.customers} {
		*ps = make([]partyRow, r.count())
		for i := range *ps {
			(*ps)[i] = partyRow{name: r.str(), address: r.str(), phone: r.str(), segment: r.str(),
				comment: r.str(), nation: r.index(len(t.nations)), balance: r.int()}
		}
	}
	t.parts = make([]Part, r.count())
	for i := range t.parts {
		t.parts[i] = Part{Name: r.str(), Manufacturer: r.str(), Brand: r.str(), Type: r.str(),
			Size: int32(r.int()), Container: r.str(), RetailPrice: cents(r.int()), Comment: r.str()}
	}
	t.orders = make([]orderRow, r.count())
	for i := range t.orders {
		t.orders[i] = orderRow{customer: r.index(len(t.customers)), status: r.str(), date: r.str(),
			priority: r.str(), clerk: r.str(), comment: r.str(), totalPrice: r.int(), shipPriority: int32(r.int())}
	}
	t.lines = make([]lineRow, r.count())
	for i := range t.lines {
		t.lines[i] = lineRow{order: r.index(len(t.orders)), part: r.index(len(t.parts)),
			supplier: r.index(len(t.suppliers)), lineNumber: int32(r.int()), quantity: int32(r.int()),
			extendedPrice: r.int(), discount: r.int(), tax: r.int(),
			returnFlag: r.str(), lineStatus: r.str(), shipDate: r.str(), commitDate: r.str(),
			receiptDate: r.str(), shipInstruct: r.str(), shipMode: r.str(), comment: r.str()}
	}
	if r.err != nil {
		return nil, fmt.Errorf("tpch: tables file: %w", r.err)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("tpch: tables file: %d unexpected bytes after the tables", len(r.b))
	}
	return t, nil
}
