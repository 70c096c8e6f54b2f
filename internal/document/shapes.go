package document

import (
	"strconv"
	"strings"
	"time"
)

// The realistic shapes. Values come from the small word lists below
// (generated once) and from the key's random source; categorical values
// (tags, product groups, countries, ratings) are skewed as real data is, so
// that secondary queries and group-bys see hot and cold values.

const (
	dateTime = time.RFC3339
	dateOnly = time.DateOnly
)

var (
	wordList = fields(`time year people way day man thing woman life child world school state family
student group country problem hand part place case week company system program question work
government number night point home water room mother area money story fact month lot right study
book eye job word business issue side kind head house service friend father power hour game line
end member law car city community name president team minute idea kid body information back parent
face others level office door health person art war history party result change morning reason
research girl guy moment air teacher force education design music photo travel food recipe code
linux python java web video news blog tools software free tutorial howto reference science politics
culture funny shopping social media inspiration books history economics finance health marketing
security database javascript css html development programming mobile apple google windows games
photography art writing technology business productivity education research opensource jobs
environment green energy climate sport football movies film tv humor cooking library maps weather
nyc london paris berlin tokyo review guide tips ideas resources list best new old small large quick`)
	firstNames = fields(`James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara
Richard Susan Joseph Jessica Thomas Sarah Charles Karen Daniel Nancy Matthew Lisa Anthony Betty Mark
Sandra Donald Ashley Steven Emily Paul Donna Andrew Michelle Joshua Carol Kenneth Amanda Kevin Melissa
Brian Deborah Olga Ivan Dmitry Nikita Oleg Yuki Hiro Wei Li Priya Arjun Fatima Omar Lucia Mateo Sofia`)
	lastNames = fields(`Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez
Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez
Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green
Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Ivanov Petrov Tanaka Sato Chen Wang`)
	cityNames = fields(`London Paris Berlin Madrid Rome Moscow Tokyo Osaka Beijing Shanghai Mumbai Delhi
Toronto Chicago Houston Phoenix Seattle Boston Denver Austin Dallas Sydney Melbourne Auckland Dublin
Vienna Prague Warsaw Lisbon Athens Istanbul Cairo Nairobi Lagos Lima Bogota Santiago Montreal Oslo`)
	countryNames = fields(`USA India China Germany UK France Japan Brazil Canada Russia Italy Spain Mexico
Australia Netherlands Sweden Poland Turkey Argentina Norway Ireland Portugal Greece Egypt Kenya`)
	streetNames = fields(`Main Oak Pine Maple Cedar Elm Washington Lake Hill Park Sunset River Church Spring
Highland Forest Meadow Ridge Valley Mill`)
	deviceNames = fields(`iphone ipad android pixel galaxy kindle macbook thinkpad surface watch tv console`)
	userNames   = makeUsers()

	productGroups = []string{"Book", "Music", "DVD", "Video", "Toy", "Software", "Video Games",
		"Electronics", "Baby Product", "Kitchen", "Sports", "Health and Beauty"}
	productCategories = []string{"Literature & Fiction", "Business & Investing", "Children's Books",
		"Computers & Internet", "Science", "History", "Pop", "Rock", "Classical", "Jazz", "Drama",
		"Comedy", "Action & Adventure", "Documentary", "Games", "Education", "Home & Garden",
		"Health, Mind & Body", "Reference", "Religion & Spirituality"}
	productSubcategories = []string{"General", "Mystery & Thrillers", "Romance", "Biographies",
		"Management", "Programming", "Web Development", "Physics", "Biology", "World", "Americas",
		"Europe", "Alternative", "Soundtracks", "Anime", "Family", "Classics", "Cooking", "Travel",
		"Self-Help"}

	quotedWords = quoteAll(wordList)
	wordsZipf   = zipfCDF(len(wordList), 0.99)
)

func fields(s string) [][]byte {
	var out [][]byte
	for _, w := range strings.Fields(s) {
		out = append(out, []byte(w))
	}
	return out
}

func makeUsers() [][]byte {
	var out [][]byte
	for i := range 256 {
		w := wordList[(i*7)%len(wordList)]
		l := strings.ToLower(string(lastNames[(i*13)%len(lastNames)]))
		out = append(out, []byte(string(w)+l))
	}
	return out
}

func quoteAll(list [][]byte) [][]byte {
	out := make([][]byte, len(list))
	for i, w := range list {
		out[i] = jsonString(string(w))
	}
	return out
}

func strs(list ...string) [][]byte {
	out := make([][]byte, len(list))
	for i, s := range list {
		out[i] = []byte(s)
	}
	return out
}

// Schema constructors.

func obj(name string, fs ...*node) *node { return &node{kind: kObject, name: name, fields: fs} }

func arr(name string, alen Dist, item *node) *node {
	return &node{kind: kArray, name: name, alen: alen, item: item}
}

func uniform(lo, hi int64) Dist { return Dist{Kind: DistUniform, Min: lo, Max: hi} }
func zipf(lo, hi int64) Dist    { return newZipfDist(lo, hi, 0.99) }

// words is resizable text of words from list, lo…hi bytes long.
func words(name string, list [][]byte, lo, hi int64) *node {
	return &node{kind: kWords, name: name, list: list, slen: uniform(lo, hi)}
}

// enum is one of list (as JSON strings), skewed (Zipf) or uniform.
func enum(name string, skewed bool, list [][]byte) *node {
	n := &node{kind: kEnum, name: name, vals: quoteAll(list), categorical: true}
	if skewed {
		n.cdf = zipfCDF(len(list), 0.99)
	}
	return n
}

// weighted is one of the encoded JSON values with the given weights.
func weighted(name string, vals []string, weights []float64) *node {
	n := &node{kind: kEnum, name: name, categorical: true}
	sum := 0.0
	for i, v := range vals {
		n.vals = append(n.vals, []byte(v))
		sum += weights[i]
		n.cdf = append(n.cdf, sum)
	}
	for i := range n.cdf {
		n.cdf[i] /= sum
	}
	return n
}

// skewedInt is an integer lo…hi skewed towards lo.
func skewedInt(name string, lo, hi int64) *node {
	n := &node{kind: kEnum, name: name, cdf: zipfCDF(int(hi-lo+1), 0.99)}
	for v := lo; v <= hi; v++ {
		n.vals = append(n.vals, strconv.AppendInt(nil, v, 10))
	}
	return n
}

func integer(name string, lo, hi int64) *node { return &node{kind: kInt, name: name, min: lo, max: hi} }

// money is a number lo…hi with two decimals (given in cents).
func money(name string, lo, hi int64) *node { return &node{kind: kMoney, name: name, min: lo, max: hi} }

func boolean(name string, p float64) *node { return &node{kind: kBool, name: name, prob: p} }
func null(name string) *node               { return &node{kind: kNull, name: name} }

func date(name, from, to, layout string) *node {
	f, _ := time.Parse(time.DateOnly, from)
	t, _ := time.Parse(time.DateOnly, to)
	return &node{kind: kDate, name: name, min: f.Unix(), max: t.Unix() + 86399, format: layout}
}

func pattern(name, pat string, list [][]byte) *node {
	return &node{kind: kPattern, name: name, format: pat, list: list}
}

func seq(name string) *node { return &node{kind: kSeq, name: name} }

// orNull makes n null with probability p.
func (n *node) orNull(p float64) *node { n.nullable = p; return n }

const hex32 = "%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%"

// Rare tag terms of the bookmarks shape: the first tag's term of one
// document in 10,000 (RareTerm10000) and of another one in 100
// (RareTerm100), chosen by a hash of (seed, key number), so that a search
// for them has a known, low selectivity, where an index is meant to win.
const (
	RareTerm10000 = "rare-1-in-10000"
	RareTerm100   = "rare-1-in-100"
)

// plant makes the enumeration n take value in one document in every (in
// an array: in its first element); rem tells plantings apart (documents
// with hash % every == rem), so those of different values never meet.
func (n *node) plant(value string, every, rem uint64) *node {
	n.planted = append(n.planted, planted{val: jsonString(value), every: every, rem: rem})
	return n
}

// bookmarksRoot is like the Delicious bookmarks of the seeds (the "js" set
// of the jsonb talks): mostly strings, short keys, two arrays of
// three-field objects (tags, links). Its tags carry the rare terms.
func bookmarksRoot() *node {
	return obj("",
		pattern("id", "http://delicious.com/url/"+hex32+`\#~`, userNames),
		pattern("link", "http://www.~.com/####/~.html", wordList),
		words("title", wordList, 10, 80),
		obj("title_detail",
			pattern("base", `http://feeds.delicious.com/v2/rss/~\?count=15`, userNames),
			enum("type", false, strs("text/plain", "text/html")),
			words("value", wordList, 10, 80),
			null("language"),
		),
		enum("author", true, userNames),
		pattern("comments", "http://delicious.com/url/"+hex32, nil),
		boolean("guidislink", 0.02),
		date("updated", "2005-01-01", "2009-12-31", dateTime),
		arr("tags", zipf(1, 12), obj("",
			enum("term", true, wordList).plant(RareTerm10000, 10000, 1).plant(RareTerm100, 100, 2),
			pattern("scheme", "http://delicious.com/~/", userNames),
			null("label"),
		)),
		arr("links", uniform(1, 2), obj("",
			pattern("href", "http://www.~.com/####/", wordList),
			enum("type", false, strs("text/html")),
			enum("rel", false, strs("alternate")),
		)),
		obj("source"),
		pattern("wfw_commentrss", "http://feeds.delicious.com/v2/rss/url/"+hex32, nil),
	)
}

// reviewsRoot is like the Amazon customer reviews of the seeds (the "jr"
// set): long keys, many small integers; group by product_group, average
// review_rating.
func reviewsRoot() *node {
	return obj("",
		pattern("customer_id", "A?????????????", nil),
		date("review_date", "1995-06-01", "2005-12-31", dateOnly),
		weighted("review_rating", []string{"1", "2", "3", "4", "5"}, []float64{7, 5, 8, 20, 60}),
		skewedInt("review_votes", 0, 200),
		skewedInt("review_helpful_votes", 0, 150),
		pattern("product_id", "##########", nil),
		words("product_title", wordList, 10, 100),
		integer("product_sales_rank", 1, 3000000),
		enum("product_group", true, strs(productGroups...)),
		enum("product_category", true, strs(productCategories...)),
		enum("product_subcategory", true, strs(productSubcategories...)),
		arr("similar_product_ids", uniform(0, 5), pattern("", "##########", nil)),
	)
}

// customerRoot is like YCSB-JSON's customer document (Couchbase's YCSB
// extension): nested address with a previous address, arrays of objects and
// of scalars, arrays in arrays.
func customerRoot() *node {
	address := func() []*node {
		return []*node{
			pattern("street", "#### ~ Street", streetNames),
			enum("city", true, cityNames),
			pattern("zip", "#####", nil),
			enum("country", true, countryNames),
		}
	}
	prev := obj("prev_address", address()...).orNull(0.3)
	return obj("",
		enum("first_name", false, firstNames),
		enum("middle_name", false, firstNames).orNull(0.5),
		enum("last_name", false, lastNames),
		pattern("email", `~####\@example.com`, userNames),
		integer("age", 18, 90),
		date("dob", "1935-01-01", "2007-12-31", dateOnly),
		boolean("is_active", 0.8),
		money("balance", 0, 10000000),
		integer("linear_score", 0, 100),
		money("weighted_score", 0, 10000),
		pattern("phone", "+1-###-###-####", nil),
		pattern("url", "https://www.~.com/", wordList),
		obj("address", append(address(), prev)...),
		arr("children", zipf(0, 5), obj("",
			enum("first_name", false, firstNames),
			enum("gender", false, strs("F", "M")),
			integer("age", 0, 30),
		)),
		arr("visited_places", uniform(0, 5), obj("",
			enum("country", true, countryNames),
			arr("cities", uniform(1, 4), enum("", true, cityNames)),
		)),
		arr("devices", uniform(0, 4), pattern("", "~-#####", deviceNames)),
		date("created_at", "2015-01-01", "2025-12-31", dateTime),
		words("notes", wordList, 20, 200),
	)
}

// blogRoot is the blog aggregate of the .NET seed: a blog with posts[],
// each with comments[].
func blogRoot() *node {
	return obj("",
		pattern("blog_id", "%%%%%%%%-%%%%-4%%%-%%%%-%%%%%%%%%%%%", nil),
		words("name", wordList, 5, 40),
		pattern("url", "https://~.example.com/", wordList),
		obj("owner",
			enum("name", false, firstNames),
			pattern("email", `~\@example.com`, userNames),
		),
		date("created", "2010-01-01", "2025-12-31", dateTime),
		money("rating", 100, 500),
		arr("tags", uniform(0, 5), enum("", true, wordList)),
		arr("posts", uniform(1, 6), obj("",
			seq("post_id"),
			words("title", wordList, 10, 80),
			words("content", wordList, 100, 600),
			date("published", "2010-01-01", "2025-12-31", dateTime),
			skewedInt("likes", 0, 1000),
			boolean("draft", 0.1),
			arr("comments", zipf(0, 8), obj("",
				seq("comment_id"),
				enum("author", false, firstNames),
				words("content", wordList, 20, 300),
				date("created", "2010-01-01", "2025-12-31", dateTime),
				boolean("approved", 0.9),
			)),
		)),
	)
}
