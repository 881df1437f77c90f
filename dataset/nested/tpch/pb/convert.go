package pb

import "github.com/serbench/serbench/dataset/nested/tpch"

func fromNation(n *tpch.Nation) *Nation {
	return &Nation{Name: n.Name, Region: &Region{Name: n.Region.Name, Comment: n.Region.Comment}, Comment: n.Comment}
}

func toNation(n *Nation) tpch.Nation {
	r := n.GetRegion()
	return tpch.Nation{Name: n.GetName(), Region: tpch.Region{Name: r.GetName(), Comment: r.GetComment()},
		Comment: n.GetComment()}
}

// FromLineItem fills m from r with a fresh message tree.
func FromLineItem(r *tpch.LineItem, m *LineItem) error {
	o, c, p, s := &r.Order, &r.Order.Customer, &r.Part, &r.Supplier
	*m = LineItem{
		Order: &Order{
			Customer: &Customer{Name: c.Name, Address: c.Address, Nation: fromNation(&c.Nation), Phone: c.Phone,
				AccountBalance: c.AccountBalance, MarketSegment: c.MarketSegment, Comment: c.Comment},
			OrderStatus: o.OrderStatus, TotalPrice: o.TotalPrice, OrderDate: o.OrderDate,
			OrderPriority: o.OrderPriority, Clerk: o.Clerk, ShipPriority: o.ShipPriority, Comment: o.Comment,
		},
		Part: &Part{Name: p.Name, Manufacturer: p.Manufacturer, Brand: p.Brand, Type: p.Type, Size: p.Size,
			Container: p.Container, RetailPrice: p.RetailPrice, Comment: p.Comment},
		Supplier: &Supplier{Name: s.Name, Address: s.Address, Nation: fromNation(&s.Nation), Phone: s.Phone,
			AccountBalance: s.AccountBalance, Comment: s.Comment},
		LineNumber: r.LineNumber, Quantity: r.Quantity, ExtendedPrice: r.ExtendedPrice, Discount: r.Discount,
		Tax: r.Tax, ReturnFlag: r.ReturnFlag, LineStatus: r.LineStatus, ShipDate: r.ShipDate,
		CommitDate: r.CommitDate, ReceiptDate: r.ReceiptDate, ShipInstruct: r.ShipInstruct,
		ShipMode: r.ShipMode, Comment: r.Comment,
	}
	return nil
}

// ToLineItem fills r from m. Missing nested messages read as empty ones, as
// proto3 defaults have it.
func ToLineItem(m *LineItem, r *tpch.LineItem) error {
	o, p, s := m.GetOrder(), m.GetPart(), m.GetSupplier()
	c := o.GetCustomer()
	*r = tpch.LineItem{
		Order: tpch.Order{
			Customer: tpch.Customer{Name: c.GetName(), Address: c.GetAddress(), Nation: toNation(c.GetNation()),
				Phone: c.GetPhone(), AccountBalance: c.GetAccountBalance(), MarketSegment: c.GetMarketSegment(),
				Comment: c.GetComment()},
			OrderStatus: o.GetOrderStatus(), TotalPrice: o.GetTotalPrice(), OrderDate: o.GetOrderDate(),
			OrderPriority: o.GetOrderPriority(), Clerk: o.GetClerk(), ShipPriority: o.GetShipPriority(),
			Comment: o.GetComment(),
		},
		Part: tpch.Part{Name: p.GetName(), Manufacturer: p.GetManufacturer(), Brand: p.GetBrand(), Type: p.GetType(),
			Size: p.GetSize(), Container: p.GetContainer(), RetailPrice: p.GetRetailPrice(), Comment: p.GetComment()},
		Supplier: tpch.Supplier{Name: s.GetName(), Address: s.GetAddress(), Nation: toNation(s.GetNation()),
			Phone: s.GetPhone(), AccountBalance: s.GetAccountBalance(), Comment: s.GetComment()},
		LineNumber: m.GetLineNumber(), Quantity: m.GetQuantity(), ExtendedPrice: m.GetExtendedPrice(),
		Discount: m.GetDiscount(), Tax: m.GetTax(), ReturnFlag: m.GetReturnFlag(), LineStatus: m.GetLineStatus(),
		ShipDate: m.GetShipDate(), CommitDate: m.GetCommitDate(), ReceiptDate: m.GetReceiptDate(),
		ShipInstruct: m.GetShipInstruct(), ShipMode: m.GetShipMode(), Comment: m.GetComment(),
	}
	return nil
}
