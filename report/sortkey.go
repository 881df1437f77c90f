package report

import (
	"strconv"
	"strings"
)

// unitScale maps the units cells are printed in to one scale per kind, so
// that "980 µs" sorts below "1.2 ms" and "900 KiB" below "1.1 MiB".
var unitScale = map[string]float64{
	"ns": 1, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9,
	"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
	"k": 1e3, "M": 1e6, "G": 1e9,
	"%": 1, "×": 1, "x": 1,
}

// SortKey returns the number a table cell stands for ("1.23 ms ±4%" →
// 1.23e6, "3.2× faster" → 3.2, "1,234" → 1234, "45.1%" → 45.1) and
// whether it is a number at all; HTML tables sort by it and align such
// cells right. "× slower" sorts as its reciprocal of "× faster".
func SortKey(cell string) (float64, bool) {
	s := strings.TrimSpace(cell)
	if s == "" || s == "–" {
		return 0, false
	}
	end := 0
	for end < len(s) {
		c := s[end]
		if (c >= '0' && c <= '9') || c == '.' || c == ',' || (end == 0 && (c == '-' || c == '+')) || ((c == 'e' || c == 'E') && end > 0 && end+1 < len(s) && (s[end+1] == '-' || s[end+1] == '+')) {
			if c == 'e' || c == 'E' {
				end++
			}
			end++
			continue
		}
		break
	}
	num := strings.ReplaceAll(s[:end], ",", "")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	rest := strings.TrimSpace(s[end:])
	unit := rest
	if i := strings.IndexAny(rest, " (±"); i >= 0 {
		unit = rest[:i]
	}
	if m, ok := unitScale[unit]; ok {
		v *= m
	} else if unit != "" && !strings.HasPrefix(rest, "(") && !strings.HasPrefix(rest, "±") {
		// "12 cases", "3 of 4": a number followed by words still sorts by
		// its number; anything else ("v1.2.3") is text.
		if r := []rune(unit)[0]; !(r >= 'a' && r <= 'z') {
			return 0, false
		}
	}
	if strings.Contains(rest, "slower") && v != 0 {
		v = 1 / v
	}
	return v, true
}
