package main

import (
	"slices"
	"strings"
	"testing"
)

func TestMeasureEnv(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []string
		changed bool
	}{
		{"no GODEBUG", []string{"PATH=/bin"}, []string{"PATH=/bin", "GODEBUG=madvdontneed=0"}, true},
		{"other settings kept", []string{"GODEBUG=gctrace=1", "HOME=/h"}, []string{"HOME=/h", "GODEBUG=gctrace=1,madvdontneed=0"}, true},
		{"the user's choice wins", []string{"GODEBUG=madvdontneed=1"}, []string{"GODEBUG=madvdontneed=1"}, false},
		{"already set", []string{"GODEBUG=x=1,madvdontneed=0"}, []string{"GODEBUG=x=1,madvdontneed=0"}, false},
		{"empty GODEBUG", []string{"GODEBUG="}, []string{"GODEBUG=madvdontneed=0"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := measureEnv(tt.in)
			if !slices.Equal(got, tt.want) || changed != tt.changed {
				t.Errorf("measureEnv(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
			}
		})
	}
	for args, want := range map[string]bool{"serbench run": true, "serbench report x": false, "serbench": false} {
		if got := measuring(strings.Fields(args)); got != want {
			t.Errorf("measuring(%q) = %v", args, got)
		}
	}
}
