package tpch

import (
	"errors"
	"fmt"

	"github.com/pingcap/go-tpc/tpch/dbgen"
)

// ScaleFactor is the integer scale factor dbgen runs at; the tables are then
// cut down to scale factor 0.1 (see the package comment).
const ScaleFactor = 1

// Table sizes at scale factor 0.1 (TPC-H: 15,000 customers, 20,000 parts,
// 1,000 suppliers per 0.1) and the supplier count at ScaleFactor.
const (
	sf01Customers = 15_000
	sf01Parts     = 20_000
	sf01Suppliers = 1_000
	sf1Suppliers  = 10_000 * ScaleFactor
	suppPerPart   = 4 // dbgen's suppliers per part
)

// sf01Key maps a key drawn uniformly from [1, 10n] at scale factor 1 to the
// key the same draw gives from [1, n] at scale factor 0.1: dbgen draws
// 1 + floor(u·range), and floor(u·n) = floor(floor(u·10n)/10).
func sf01Key(k int64) int64 { return 1 + (k-1)/10 }

// sf01CustKey maps an order's customer key at scale factor 1 to scale factor
// 0.1. dbgen moves a drawn key k with k%3 == 0 to k+1 (a third of the
// customers have no orders), so a key with k%3 == 1 may have been drawn as k
// or k-1; taking k gives the same scale factor 0.1 key unless k-1 is a
// multiple of 10 (about 1 order in 30), where the key may be one off from what
// dbgen at scale factor 0.1 draws. The result gets the same adjustment.
func sf01CustKey(k int64) int64 {
	c := sf01Key(k)
	for delta := int64(1); c%3 == 0; delta = -delta {
		c = min(c+delta, sf01Customers)
	}
	return c
}

// suppBridge is dbgen's partSuppBridge: the key of supplier number s (0 to 3)
// of part p when there are n suppliers.
func suppBridge(p, s, n int64) int64 {
	return (p+s*(n/suppPerPart+(p-1)/n))%n + 1
}

// suppNumber returns which of part p's suppliers (0 to 3) supplier key s is at
// scale factor 1.
func suppNumber(p, s int64) (int64, bool) {
	for n := range int64(suppPerPart) {
		if suppBridge(p, n, sf1Suppliers) == s {
			return n, true
		}
	}
	return 0, false
}

// retailPrice is dbgen's rpbRoutine: the retail price in cents of part p.
func retailPrice(p int64) int64 { return 90000 + (p/10)%20001 + (p%1000)*100 }

// lineTotal is what a line adds to its order's total price, in cents, computed
// as dbgen does.
func lineTotal(extendedPrice, discount, tax int64) int64 {
	return extendedPrice * (100 - discount) / 100 * (100 + tax) / 100
}

// loader collects one dbgen table through a callback.
type loader func(item any) error

// Load implements dbgen.Loader: it passes one generated row to l.
func (l loader) Load(item any) error { return l(item) }

// Flush implements dbgen.Loader; rows are collected in memory, so it does nothing.
func (l loader) Flush() error { return nil }

// errEnough stops dbgen once a table has enough rows.
var errEnough = errors.New("enough rows")

// runTable runs dbgen on one table with load until load returns errEnough or
// the table ends, and returns the first other error load or dbgen reported.
// (dbgen formats loader errors with %v, so the loader's own error is kept
// here rather than unwrapped from dbgen's.)
func runTable(table dbgen.Table, load func(item any) error) error {
	var loadErr error
	stopped := false
	err := dbgen.DbGen(map[dbgen.Table]dbgen.Loader{table: loader(func(item any) error {
		err := load(item)
		switch {
		case errors.Is(err, errEnough):
			stopped = true
		case err != nil:
			loadErr = err
		}
		return err
	})}, []dbgen.Table{table})
	switch {
	case loadErr != nil:
		return loadErr
	case err != nil && !stopped:
		return fmt.Errorf("tpch: dbgen: %w", err)
	}
	return nil
}

// runDbgen generates the tables of the first lines line items at scale factor
// 0.1 (see the package comment). It initialises dbgen's package state, so it
// must run at most once per process: only the child process calls it.
func runDbgen(lines int) (*Tables, error) {
	if lines < 0 {
		return nil, fmt.Errorf("tpch: negative line count %d", lines)
	}
	dbgen.InitDbGen(ScaleFactor)
	t := &Tables{}
	wrong := func(what string, item any) error { return fmt.Errorf("tpch: dbgen %s loader got %T", what, item) }

	err := runTable(dbgen.TRegion, func(item any) error {
		r, ok := item.(*dbgen.Region)
		if !ok || int(r.Code) != len(t.regions) {
			return wrong("region", item)
		}
		t.regions = append(t.regions, Region{Name: r.Text, Comment: r.Comment})
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = runTable(dbgen.TNation, func(item any) error {
		n, ok := item.(*dbgen.Nation)
		if !ok || int(n.Code) != len(t.nations) || n.Join < 0 || int(n.Join) >= len(t.regions) {
			return wrong("nation", item)
		}
		t.nations = append(t.nations, nationRow{name: n.Text, comment: n.Comment, region: int(n.Join)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Rows are numbered from key 1; at any scale, row i of these tables is the
	// same, so scale factor 0.1's are the first rows of scale factor 1's.
	party := func(what string, rows *[]partyRow, limit int, key, nation int64, row partyRow) error {
		if len(*rows) >= limit {
			return errEnough
		}
		if key != int64(len(*rows))+1 || nation < 0 || nation >= int64(len(t.nations)) {
			return fmt.Errorf("tpch: dbgen %s %d: unexpected key or nation %d", what, key, nation)
		}
		row.nation = int(nation)
		*rows = append(*rows, row)
		return nil
	}
	err = runTable(dbgen.TSupp, func(item any) error {
		s, ok := item.(*dbgen.Supp)
		if !ok {
			return wrong("supplier", item)
		}
		return party("supplier", &t.suppliers, sf01Suppliers, int64(s.SuppKey), int64(s.NationCode),
			partyRow{name: s.Name, address: s.Address, phone: s.Phone, comment: s.Comment, balance: int64(s.Acctbal)})
	})
	if err != nil {
		return nil, err
	}
	err = runTable(dbgen.TCust, func(item any) error {
		c, ok := item.(*dbgen.Cust)
		if !ok {
			return wrong("customer", item)
		}
		return party("customer", &t.customers, sf01Customers, int64(c.CustKey), int64(c.NationCode),
			partyRow{name: c.Name, address: c.Address, phone: c.Phone, segment: c.MktSegment,
				comment: c.Comment, balance: int64(c.Acctbal)})
	})
	if err != nil {
		return nil, err
	}
	err = runTable(dbgen.TPart, func(item any) error {
		p, ok := item.(*dbgen.Part)
		if !ok {
			return wrong("part", item)
		}
		if len(t.parts) >= sf01Parts {
			return errEnough
		}
		if int64(p.PartKey) != int64(len(t.parts))+1 || int64(p.RetailPrice) != retailPrice(int64(p.PartKey)) {
			return fmt.Errorf("tpch: dbgen part %d: unexpected key or retail price", p.PartKey)
		}
		t.parts = append(t.parts, Part{Name: p.Name, Manufacturer: p.Mfgr, Brand: p.Brand, Type: p.Type,
			Size: int32(p.Size), Container: p.Container, RetailPrice: cents(int64(p.RetailPrice)), Comment: p.Comment})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if lines == 0 {
		return t, nil
	}
	err = runTable(dbgen.TLine, func(item any) error {
		if len(t.lines) >= lines {
			return errEnough
		}
		o, ok := item.(*dbgen.Order)
		if !ok {
			return wrong("order", item)
		}
		ck := sf01CustKey(int64(o.CustKey))
		oi := len(t.orders)
		t.orders = append(t.orders, orderRow{customer: int(ck - 1), status: o.Status, date: o.Date,
			priority: o.OrderPriority, clerk: o.Clerk, comment: o.Comment, shipPriority: int32(o.ShipPriority)})
		var total, sf1Total int64
		for _, l := range o.Lines {
			pk, sk, qty := int64(l.PartKey), int64(l.SuppKey), int64(l.Quantity)
			disc, tax := int64(l.Discount), int64(l.Tax)
			// Check that the prices are derived as reproduced here.
			if int64(l.EPrice) != retailPrice(pk)*qty {
				return fmt.Errorf("tpch: dbgen order %d: extended price %d is not part %d's price × %d",
					o.OKey, l.EPrice, pk, qty)
			}
			sf1Total += lineTotal(int64(l.EPrice), disc, tax)
			sn, ok := suppNumber(pk, sk)
			if !ok {
				return fmt.Errorf("tpch: dbgen order %d: supplier %d is none of part %d's", o.OKey, sk, pk)
			}
			p := sf01Key(pk)
			s := suppBridge(p, sn, sf01Suppliers)
			ep := retailPrice(p) * qty
			total += lineTotal(ep, disc, tax)
			if len(t.lines) < lines {
				t.lines = append(t.lines, lineRow{order: oi, part: int(p - 1), supplier: int(s - 1),
					lineNumber: int32(l.LCnt), quantity: int32(qty), extendedPrice: ep, discount: disc, tax: tax,
					returnFlag: l.RFlag, lineStatus: l.LStatus, shipDate: l.SDate, commitDate: l.CDate,
					receiptDate: l.RDate, shipInstruct: l.ShipInstruct, shipMode: l.ShipMode, comment: l.Comment})
			}
		}
		if sf1Total != int64(o.TotalPrice) {
			return fmt.Errorf("tpch: dbgen order %d: total price %d is not the sum of its lines %d",
				o.OKey, o.TotalPrice, sf1Total)
		}
		t.orders[oi].totalPrice = total
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(t.lines) != lines {
		return nil, fmt.Errorf("tpch: dbgen produced %d line items, want %d", len(t.lines), lines)
	}
	return t, nil
}
