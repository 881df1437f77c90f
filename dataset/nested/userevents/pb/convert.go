package pb

import (
	"fmt"

	"github.com/serbench/serbench/dataset/nested/userevents"
)

// family converts a userevents.Device.Family string to the enum.
func family(s string) (Family, error) {
	switch s {
	case "ios":
		return Family_IOS, nil
	case "android":
		return Family_ANDROID, nil
	case "windows":
		return Family_WINDOWS, nil
	}
	return 0, fmt.Errorf("userevents pb: unknown device family %q", s)
}

// familyName is the inverse of family.
func familyName(f Family) (string, error) {
	switch f {
	case Family_IOS:
		return "ios", nil
	case Family_ANDROID:
		return "android", nil
	case Family_WINDOWS:
		return "windows", nil
	}
	return "", fmt.Errorf("userevents pb: unknown device family %d", f)
}

// eventType converts a userevents.Event.Type string to the enum.
func eventType(s string) (EventType, error) {
	switch s {
	case "Listing":
		return EventType_LISTING, nil
	case "Purchase":
		return EventType_PURCHASE, nil
	case "Search":
		return EventType_SEARCH, nil
	case "Profile update":
		return EventType_PROFILE_UPDATE, nil
	}
	return 0, fmt.Errorf("userevents pb: unknown event type %q", s)
}

// eventTypeName is the inverse of eventType.
func eventTypeName(t EventType) (string, error) {
	switch t {
	case EventType_LISTING:
		return "Listing", nil
	case EventType_PURCHASE:
		return "Purchase", nil
	case EventType_SEARCH:
		return "Search", nil
	case EventType_PROFILE_UPDATE:
		return "Profile update", nil
	}
	return "", fmt.Errorf("userevents pb: unknown event type %d", t)
}

// clone returns a copy of *p, or nil.
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// FromRecord fills m from r. It builds a fresh message tree; optional fields
// are copied, so m shares no pointers with r.
func FromRecord(r *userevents.Record, m *Record) error {
	p := &r.Personal
	a := &p.Address
	*m = Record{
		Id: r.ID, Guid: r.GUID, About: clone(r.About), RegisteredAt: r.RegisteredAt, Tagline: r.Tagline,
		Username: r.Username, Balance: r.Balance, Language: r.Language, IsActive: r.IsActive,
		Personal: &Personal{
			Company: clone(p.Company), Gender: clone(p.Gender), Phone: clone(p.Phone),
			Picture: clone(p.Picture), EyeColor: clone(p.EyeColor), Email: p.Email,
			FirstName: p.FirstName, LastName: p.LastName, Yob: p.YOB,
			Address: &Address{Country: a.Country, Zip: a.Zip, State: a.State, City: a.City, Street: a.Street},
		},
	}
	if len(r.Tags) > 0 {
		m.Tags = make([]*Tag, len(r.Tags))
		for i, t := range r.Tags {
			m.Tags[i] = &Tag{Name: t.Name}
		}
	}
	if len(r.Devices) > 0 {
		m.Devices = make([]*Device, len(r.Devices))
	}
	for d := range r.Devices {
		rd := &r.Devices[d]
		f, err := family(rd.Family)
		if err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
		md := &Device{Mac: rd.Mac, Family: f}
		if len(rd.Connections) > 0 {
			md.Connections = make([]*Connection, len(rd.Connections))
		}
		for c := range rd.Connections {
			rc := &rd.Connections[c]
			mc := &Connection{At: rc.At, Ip: rc.IP, Referrer: rc.Referrer, Geo: &Geo{Lat: rc.Geo.Lat, Long: rc.Geo.Long}}
			if len(rc.Events) > 0 {
				mc.Events = make([]*Event, len(rc.Events))
			}
			for e := range rc.Events {
				re := &rc.Events[e]
				t, err := eventType(re.Type)
				if err != nil {
					return fmt.Errorf("device %d connection %d event %d: %w", d, c, e, err)
				}
				mc.Events[e] = &Event{At: re.At, Type: t, Amount: clone(re.Amount)}
			}
			md.Connections[c] = mc
		}
		m.Devices[d] = md
	}
	return nil
}

// ToRecord fills r from m. Missing nested messages read as empty ones, as
// proto3 defaults have it.
func ToRecord(m *Record, r *userevents.Record) error {
	p := m.GetPersonal()
	if p == nil {
		p = new(Personal)
	}
	a := p.GetAddress()
	*r = userevents.Record{
		ID: m.GetId(), GUID: m.GetGuid(), About: clone(m.About), RegisteredAt: m.GetRegisteredAt(),
		Tagline: m.GetTagline(), Username: m.GetUsername(), Balance: m.GetBalance(), Language: m.GetLanguage(),
		IsActive: m.GetIsActive(),
		Personal: userevents.Personal{
			Company: clone(p.Company), Gender: clone(p.Gender), Phone: clone(p.Phone),
			Picture: clone(p.Picture), EyeColor: clone(p.EyeColor), Email: p.GetEmail(),
			FirstName: p.GetFirstName(), LastName: p.GetLastName(), YOB: p.GetYob(),
			Address: userevents.Address{Country: a.GetCountry(), Zip: a.GetZip(), State: a.GetState(),
				City: a.GetCity(), Street: a.GetStreet()},
		},
	}
	if len(m.Tags) > 0 {
		r.Tags = make([]userevents.Tag, len(m.Tags))
		for i, t := range m.Tags {
			r.Tags[i] = userevents.Tag{Name: t.GetName()}
		}
	}
	if len(m.Devices) > 0 {
		r.Devices = make([]userevents.Device, len(m.Devices))
	}
	for d, md := range m.Devices {
		f, err := familyName(md.GetFamily())
		if err != nil {
			return fmt.Errorf("device %d: %w", d, err)
		}
		rd := &r.Devices[d]
		*rd = userevents.Device{Mac: md.GetMac(), Family: f}
		if len(md.Connections) > 0 {
			rd.Connections = make([]userevents.Connection, len(md.Connections))
		}
		for c, mc := range md.Connections {
			rc := &rd.Connections[c]
			*rc = userevents.Connection{At: mc.GetAt(), IP: mc.GetIp(), Referrer: mc.GetReferrer(),
				Geo: userevents.Geo{Lat: mc.GetGeo().GetLat(), Long: mc.GetGeo().GetLong()}}
			if len(mc.Events) > 0 {
				rc.Events = make([]userevents.Event, len(mc.Events))
			}
			for e, me := range mc.Events {
				t, err := eventTypeName(me.GetType())
				if err != nil {
					return fmt.Errorf("device %d connection %d event %d: %w", d, c, e, err)
				}
				rc.Events[e] = userevents.Event{At: me.GetAt(), Type: t, Amount: clone(me.Amount)}
			}
		}
	}
	return nil
}
