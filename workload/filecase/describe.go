package filecase

import (
	"slices"

	"github.com/serbench/serbench/format"
	"github.com/serbench/serbench/results"
)

// Describe is what a file workload records about one of its subjects, a
// streaming format (format.Format): its library and version, what it does,
// its format labels as tags plus TagCompresses and TagRandomAccess where
// they hold (the report's notes and the combinations read them), and the
// workload's settings for it.
func Describe(d format.Descriptor, settings map[string]string) results.Descriptor {
	tags := slices.Clone(d.Labels)
	if d.Compresses {
		tags = append(tags, TagCompresses)
	}
	if d.RandomAccess {
		tags = append(tags, TagRandomAccess)
	}
	return results.Descriptor{Key: LabelFormat, Name: d.Name, Role: results.RoleSubject,
		What: d.Detail, Module: d.Library, Version: d.Version, Tags: tags, Settings: settings}
}
