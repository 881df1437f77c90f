package tpch

import (
	"errors"
	"fmt"

	"github.com/pingcap/go-tpc/tpch/dbgen"
)

// ScaleFactor is the dbgen scale factor the line items are taken from.
const ScaleFactor = 1

// loader collects one dbgen table through a callback.
type loader func(item any) error

// Load implements dbgen.Loader: it passes one generated row to l.
func (l loader) Load(item any) error { return l(item) }

// Flush implements dbgen.Loader; rows are collected in memory, so it does nothing.
func (l loader) Flush() error { return nil }

// errEnough stops dbgen once enough line items are collected.
var errEnough = errors.New("enough line items")

// runDbgen generates the tables of the first lines line items with dbgen at
// ScaleFactor. It initialises dbgen's package state, so it must run at most
// once per process: only the child process calls it.
func runDbgen(lines int) (*Tables, error) {
	if lines < 0 {
		return nil, fmt.Errorf("tpch: negative line count %d", lines)
	}
	dbgen.InitDbGen(ScaleFactor)
	t := &Tables{}
	var errs []error
	bad := func(what string, item any) error {
		err := fmt.Errorf("tpch: dbgen %s loader got %T", what, item)
		errs = append(errs, err)
		return err
	}
	partIdx := map[int64]int{}
	custIdx := map[int64]int{}
	suppIdx := map[int64]int{}
	nationIdx := map[int64]int{}
	regionIdx := map[int64]int{}
	loaders := map[dbgen.Table]dbgen.Loader{
		dbgen.TRegion: loader(func(item any) error {
			r, ok := item.(*dbgen.Region)
			if !ok {
				return bad("region", item)
			}
			regionIdx[int64(r.Code)] = len(t.regions)
			t.regions = append(t.regions, Region{Name: r.Text, Comment: r.Comment})
			return nil
		}),
		dbgen.TNation: loader(func(item any) error {
			n, ok := item.(*dbgen.Nation)
			if !ok {
				return bad("nation", item)
			}
			ri, ok := regionIdx[int64(n.Join)]
			if !ok {
				return bad(fmt.Sprintf("nation (unknown region %d)", n.Join), item)
			}
			nationIdx[int64(n.Code)] = len(t.nations)
			t.nations = append(t.nations, nationRow{name: n.Text, comment: n.Comment, region: ri})
			return nil
		}),
		dbgen.TSupp: loader(func(item any) error {
			s, ok := item.(*dbgen.Supp)
			if !ok {
				return bad("supplier", item)
			}
			ni, ok := nationIdx[int64(s.NationCode)]
			if !ok {
				return bad(fmt.Sprintf("supplier (unknown nation %d)", s.NationCode), item)
			}
			suppIdx[int64(s.SuppKey)] = len(t.suppliers)
			t.suppliers = append(t.suppliers, partyRow{name: s.Name, address: s.Address, phone: s.Phone,
				comment: s.Comment, nation: ni, balance: int64(s.Acctbal)})
			return nil
		}),
		dbgen.TCust: loader(func(item any) error {
			c, ok := item.(*dbgen.Cust)
			if !ok {
				return bad("customer", item)
			}
			ni, ok := nationIdx[int64(c.NationCode)]
			if !ok {
				return bad(fmt.Sprintf("customer (unknown nation %d)", c.NationCode), item)
			}
			custIdx[int64(c.CustKey)] = len(t.customers)
			t.customers = append(t.customers, partyRow{name: c.Name, address: c.Address, phone: c.Phone,
				segment: c.MktSegment, comment: c.Comment, nation: ni, balance: int64(c.Acctbal)})
			return nil
		}),
		dbgen.TPart: loader(func(item any) error {
			p, ok := item.(*dbgen.Part)
			if !ok {
				return bad("part", item)
			}
			partIdx[int64(p.PartKey)] = len(t.parts)
			t.parts = append(t.parts, Part{Name: p.Name, Manufacturer: p.Mfgr, Brand: p.Brand, Type: p.Type,
				Size: int32(p.Size), Container: p.Container, RetailPrice: cents(int64(p.RetailPrice)), Comment: p.Comment})
			return nil
		}),
		dbgen.TLine: loader(func(item any) error {
			if len(t.lines) >= lines {
				return errEnough
			}
			o, ok := item.(*dbgen.Order)
			if !ok {
				return bad("order", item)
			}
			ci, ok := custIdx[int64(o.CustKey)]
			if !ok {
				return bad(fmt.Sprintf("order (unknown customer %d)", o.CustKey), item)
			}
			oi := len(t.orders)
			t.orders = append(t.orders, orderRow{customer: ci, status: o.Status, date: o.Date,
				priority: o.OrderPriority, clerk: o.Clerk, comment: o.Comment,
				totalPrice: int64(o.TotalPrice), shipPriority: int32(o.ShipPriority)})
			for _, l := range o.Lines {
				if len(t.lines) >= lines {
					break
				}
				pi, ok := partIdx[int64(l.PartKey)]
				si, ok2 := suppIdx[int64(l.SuppKey)]
				if !ok || !ok2 {
					return bad(fmt.Sprintf("line item (unknown part %d or supplier %d)", l.PartKey, l.SuppKey), item)
				}
				t.lines = append(t.lines, lineRow{order: oi, part: pi, supplier: si,
					lineNumber: int32(l.LCnt), quantity: int32(l.Quantity),
					extendedPrice: int64(l.EPrice), discount: int64(l.Discount), tax: int64(l.Tax),
					returnFlag: l.RFlag, lineStatus: l.LStatus, shipDate: l.SDate, commitDate: l.CDate,
					receiptDate: l.RDate, shipInstruct: l.ShipInstruct, shipMode: l.ShipMode, comment: l.Comment})
			}
			return nil
		}),
	}
	order := []dbgen.Table{dbgen.TRegion, dbgen.TNation, dbgen.TSupp, dbgen.TCust, dbgen.TPart}
	if lines > 0 {
		order = append(order, dbgen.TLine)
	}
	err := dbgen.DbGen(loaders, order)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	if err != nil && len(t.lines) < lines {
		return nil, fmt.Errorf("tpch: dbgen: %w", err)
	}
	if len(t.lines) != lines {
		return nil, fmt.Errorf("tpch: dbgen produced %d line items, want %d", len(t.lines), lines)
	}
	return t, nil
}
