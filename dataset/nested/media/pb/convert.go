package pb

import (
	"fmt"
	"slices"

	"github.com/serbench/serbench/dataset/nested/media"
)

// player converts a media.Media.Player string to the enum.
func player(s string) (Player, error) {
	v, ok := Player_value[s]
	if !ok {
		return 0, fmt.Errorf("media pb: unknown player %q", s)
	}
	return Player(v), nil
}

// size converts a media.Image.Size string to the enum.
func size(s string) (Size, error) {
	v, ok := Size_value[s]
	if !ok {
		return 0, fmt.Errorf("media pb: unknown image size %q", s)
	}
	return Size(v), nil
}

// FromRecord fills m from r, reusing m's nested messages.
func FromRecord(r *media.Record, m *Record) error {
	p, err := player(r.Media.Player)
	if err != nil {
		return err
	}
	if m.Media == nil {
		m.Media = new(Media)
	}
	mm := m.Media
	m.Id = r.ID
	mm.Uri, mm.Title, mm.Format, mm.Copyright = r.Media.URI, r.Media.Title, r.Media.Format, r.Media.Copyright
	mm.Width, mm.Height, mm.Duration, mm.Size, mm.Bitrate =
		r.Media.Width, r.Media.Height, r.Media.Duration, r.Media.Size, r.Media.Bitrate
	mm.Player = p
	mm.Persons = append(mm.Persons[:0], r.Media.Persons...)
	for len(m.Images) < len(r.Images) {
		m.Images = append(m.Images, new(Image))
	}
	m.Images = m.Images[:len(r.Images)]
	for i := range r.Images {
		ri, mi := &r.Images[i], m.Images[i]
		s, err := size(ri.Size)
		if err != nil {
			return fmt.Errorf("image %d: %w", i, err)
		}
		mi.Uri, mi.Title, mi.Size, mi.Width, mi.Height = ri.URI, ri.Title, s, ri.Width, ri.Height
	}
	return nil
}

// ToRecord fills r from m. A missing media message reads as an empty Media
// with player JAVA, as proto3 defaults have it.
func ToRecord(m *Record, r *media.Record) error {
	mm := m.GetMedia()
	pl, ok := Player_name[int32(mm.GetPlayer())]
	if !ok {
		return fmt.Errorf("media pb: unknown player %d", mm.GetPlayer())
	}
	*r = media.Record{
		ID: m.GetId(),
		Media: media.Media{
			URI: mm.GetUri(), Title: mm.GetTitle(), Format: mm.GetFormat(), Copyright: mm.GetCopyright(),
			Width: mm.GetWidth(), Height: mm.GetHeight(), Duration: mm.GetDuration(), Size: mm.GetSize(),
			Bitrate: mm.GetBitrate(), Player: pl, Persons: slices.Clone(mm.GetPersons()),
		},
	}
	if len(m.Images) > 0 {
		r.Images = make([]media.Image, len(m.Images))
	}
	for i, mi := range m.Images {
		s, ok := Size_name[int32(mi.GetSize())]
		if !ok {
			return fmt.Errorf("media pb: image %d: unknown size %d", i, mi.GetSize())
		}
		r.Images[i] = media.Image{URI: mi.GetUri(), Title: mi.GetTitle(), Size: s,
			Width: mi.GetWidth(), Height: mi.GetHeight()}
	}
	return nil
}
