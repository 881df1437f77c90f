// Package mock draws the fake values of the nested workload's synthetic
// datasets (media, userevents), in the spirit of the mockaroo generator the
// seed used: names, lorem-ipsum text, URLs, companies, addresses, IP and MAC
// addresses, timestamps. Every value comes from a Rand seeded by a dataset
// seed and a record index, so record i is the same on every machine and can
// be generated on its own.
package mock

import (
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Rand is a deterministic random stream: PCG, with reductions written out here
// so that the sequence depends on this package alone.
type Rand struct {
	p rand.PCG
}

// splitmix64 scrambles a record index into the PCG stream selector.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Seed resets r to the stream of record index i of dataset seed.
func (r *Rand) Seed(seed uint64, i int) { r.p.Seed(seed, splitmix64(uint64(i))) }

// Uint64 returns 64 random bits.
func (r *Rand) Uint64() uint64 { return r.p.Uint64() }

// Below returns a value in [0, n), n > 0 (multiply-high reduction; its bias is
// below 2^-40 for the n used here).
func (r *Rand) Below(n int) int {
	hi, _ := bits.Mul64(r.p.Uint64(), uint64(n))
	return int(hi)
}

// Between returns a value in [lo, hi].
func (r *Rand) Between(lo, hi int) int { return lo + r.Below(hi-lo+1) }

// Percent returns true with probability pct/100.
func (r *Rand) Percent(pct int) bool { return r.Below(100) < pct }

// Pick returns a random element of xs.
func Pick[T any](r *Rand, xs []T) T { return xs[r.Below(len(xs))] }

// Fixed returns a float64 with the given number of decimals (decimals ≤ 9)
// in [lo, hi]: an integer count of units divided by 10^decimals, so that text
// formats print it short and every machine computes the same bits.
func (r *Rand) Fixed(lo, hi float64, decimals int) float64 {
	scale := 1.0
	for range decimals {
		scale *= 10
	}
	a, b := int64(lo*scale), int64(hi*scale)
	return float64(a+int64(r.Below(int(b-a+1)))) / scale
}

// Words returns n lorem-ipsum words separated by spaces.
func (r *Rand) Words(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(Pick(r, lorem[:]))
	}
	return b.String()
}

// Sentence returns a capitalised lorem-ipsum sentence of minWords..maxWords
// words ending with a period, e.g. "Phasellus sit amet erat.".
func (r *Rand) Sentence(minWords, maxWords int) string {
	s := r.Words(r.Between(minWords, maxWords))
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// Paragraph returns minSentences..maxSentences sentences of 4..16 words.
func (r *Rand) Paragraph(minSentences, maxSentences int) string {
	n := r.Between(minSentences, maxSentences)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = r.Sentence(4, 16)
	}
	return strings.Join(parts, " ")
}

// FirstName returns a first name.
func (r *Rand) FirstName() string { return Pick(r, firstNames[:]) }

// LastName returns a last name.
func (r *Rand) LastName() string { return Pick(r, lastNames[:]) }

// FullName returns "First Last".
func (r *Rand) FullName() string { return r.FirstName() + " " + r.LastName() }

// Company returns a company name, e.g. "Feedspan".
func (r *Rand) Company() string { return Pick(r, companies[:]) }

// Domain returns a web domain, e.g. "fotki.com".
func (r *Rand) Domain() string { return Pick(r, domains[:]) }

// URL returns a URL of 1..maxPath lorem path segments under a random domain,
// with a file extension, e.g. "https://fotki.com/vitae/ipsum/aliquam.js".
func (r *Rand) URL(maxPath int) string {
	var b strings.Builder
	b.WriteString(Pick(r, []string{"http://", "https://"}))
	b.WriteString(r.Domain())
	for range r.Between(1, maxPath) {
		b.WriteByte('/')
		b.WriteString(Pick(r, lorem[:]))
	}
	b.WriteString(Pick(r, extensions[:]))
	return b.String()
}

// IPv4 returns a dotted-quad address.
func (r *Rand) IPv4() string {
	v := r.Uint64()
	var b []byte
	for i := range 4 {
		if i > 0 {
			b = append(b, '.')
		}
		b = strconv.AppendUint(b, (v>>(8*i))&0xff, 10)
	}
	return string(b)
}

// MAC returns a colon-separated MAC address in lower-case hex.
func (r *Rand) MAC() string {
	const hex = "0123456789abcdef"
	v := r.Uint64()
	b := make([]byte, 0, 17)
	for i := range 6 {
		if i > 0 {
			b = append(b, ':')
		}
		x := byte(v >> (8 * i))
		b = append(b, hex[x>>4], hex[x&15])
	}
	return string(b)
}

// GUID returns a random (version 4) UUID in its text form.
func (r *Rand) GUID() string {
	const hex = "0123456789abcdef"
	var u [16]byte
	a, c := r.Uint64(), r.Uint64()
	for i := range 8 {
		u[i], u[8+i] = byte(a>>(8*i)), byte(c>>(8*i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	b := make([]byte, 0, 36)
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hex[x>>4], hex[x&15])
	}
	return string(b)
}

// Phone returns a phone number like "1-(555)-123-4567".
func (r *Rand) Phone() string {
	return strconv.Itoa(r.Between(1, 99)) + "-(" + strconv.Itoa(r.Between(200, 999)) + ")-" +
		strconv.Itoa(r.Between(200, 999)) + "-" + strconv.Itoa(r.Between(1000, 9999))
}

// Unix returns Unix seconds in [from, to).
func (r *Rand) Unix(from, to int64) int64 { return from + int64(r.Below(int(to-from))) }

// Timestamp formats Unix seconds as RFC 3339 in UTC, e.g.
// "2015-06-01T12:34:56Z".
func Timestamp(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.RFC3339) }

// Address is a postal address.
type Address struct {
	Country, Zip, State, City, Street string
}

// Address returns a random address.
func (r *Rand) Address() Address {
	return Address{
		Country: Pick(r, countries[:]),
		Zip:     strconv.Itoa(r.Between(10000, 99999)),
		State:   Pick(r, states[:]),
		City:    Pick(r, cities[:]),
		Street:  strconv.Itoa(r.Between(1, 9999)) + " " + Pick(r, lastNames[:]) + " " + Pick(r, streetKinds[:]),
	}
}

var lorem = [...]string{
	"lorem", "ipsum", "dolor", "sit", "amet", "consectetuer", "adipiscing", "elit", "proin", "risus",
	"praesent", "lectus", "vestibulum", "quam", "sapien", "varius", "ut", "blandit", "non", "interdum",
	"in", "ante", "morbi", "vel", "nulla", "eget", "eros", "elementum", "pellentesque", "quisque",
	"porta", "volutpat", "erat", "duis", "bibendum", "felis", "sed", "nunc", "mauris", "enim",
	"leo", "rhoncus", "sodales", "aliquam", "augue", "massa", "tempor", "turpis", "nec", "euismod",
	"scelerisque", "id", "justo", "etiam", "pretium", "iaculis", "fusce", "congue", "diam", "vivamus",
	"vitae", "phasellus", "libero", "rutrum", "ac", "lobortis", "nisl", "curabitur", "at", "velit",
	"donec", "dapibus", "suspendisse", "potenti", "nullam", "porttitor", "lacus", "viverra", "integer", "tincidunt",
}

var firstNames = [...]string{
	"Joshua", "Terry", "Alice", "Brian", "Carol", "Dennis", "Emily", "Frank", "Grace", "Henry",
	"Irene", "Jack", "Karen", "Larry", "Maria", "Nancy", "Oscar", "Paula", "Quinn", "Rachel",
	"Steven", "Teresa", "Victor", "Wanda", "Xavier", "Yvonne", "Zachary", "Andrea", "Bobby", "Cynthia",
	"Daniel", "Evelyn", "Gregory", "Heather", "Ian", "Julia", "Kevin", "Lisa", "Michael", "Nicole",
}

var lastNames = [...]string{
	"Barnes", "Sanders", "Adams", "Baker", "Carter", "Dixon", "Evans", "Fisher", "Garcia", "Hughes",
	"Irwin", "Jenkins", "Kelly", "Lopez", "Morris", "Nelson", "Ortiz", "Perry", "Reed", "Stewart",
	"Turner", "Vasquez", "Walker", "Young", "Bishop", "Coleman", "Duncan", "Ellis", "Ferguson", "Gordon",
	"Hart", "Jordan", "Knight", "Lawson", "Mason", "Nichols", "Owens", "Palmer", "Ramos", "Spencer",
}

var companies = [...]string{
	"Feedspan", "Jabbertype", "Skinix", "Topicware", "Zoomzone", "Voonyx", "Bluejam", "Dabfeed", "Quatz", "Rhyloo",
	"Thoughtbridge", "Wikizz", "Yodel", "Zava", "Agimba", "Browsecat", "Camido", "Devpulse", "Eire", "Flashset",
	"Gigazoom", "Innojam", "Jaxworks", "Kwilith", "Linktype", "Meevee", "Npath", "Oyoyo", "Photobug", "Realbuzz",
}

var domains = [...]string{
	"fotki.com", "businessweek.com", "salon.com", "example.com", "wikia.com", "cnet.com", "boston.com", "unesco.org",
	"ted.com", "oracle.com", "yale.edu", "nih.gov", "imdb.com", "wired.com", "npr.org", "mozilla.org",
}

var extensions = [...]string{".js", ".jsp", ".aspx", ".html", ".php", ".json", ".xml", ".png", ".jpg", ".mp4", ""}

var countries = [...]string{
	"United States", "France", "Germany", "Brazil", "China", "Indonesia", "Russia", "Japan", "Canada", "Mexico",
	"Philippines", "Poland", "Portugal", "Sweden", "Nigeria", "Peru", "Argentina", "Greece", "Czech Republic", "Colombia",
}

var states = [...]string{
	"California", "Texas", "New York", "Florida", "Ohio", "Georgia", "Virginia", "Washington", "Arizona", "Colorado",
	"Oregon", "Nevada", "Utah", "Iowa", "Kansas", "Maine", "Alabama", "Indiana", "Michigan", "Illinois",
}

var cities = [...]string{
	"Springfield", "Riverside", "Franklin", "Greenville", "Bristol", "Clinton", "Fairview", "Salem", "Madison", "Georgetown",
	"Arlington", "Ashland", "Dover", "Oxford", "Jackson", "Burlington", "Manchester", "Milton", "Newport", "Auburn",
}

var streetKinds = [...]string{"Street", "Avenue", "Road", "Lane", "Drive", "Court", "Place", "Terrace", "Way", "Park"}
