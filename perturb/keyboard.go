package perturb

// qwertyRows are the letter and digit keys of a US QWERTY keyboard, with
// each row's horizontal offset in key widths (the usual stagger).
var qwertyRows = []struct {
	keys   string
	offset float64
}{
	{"1234567890", 0},
	{"qwertyuiop", 0.5},
	{"asdfghjkl", 0.75},
	{"zxcvbnm", 1.25},
}

// keyNeighbours maps a lowercase letter or digit to the letters and digits
// around it: the keys beside it in its row and the keys in the rows above
// and below whose centres are less than one key width away horizontally.
// Punctuation keys are left out so a typo never adds a word boundary.
var keyNeighbours = buildNeighbours()

func buildNeighbours() map[byte]string {
	type pos struct{ row, x float64 }
	at := map[byte]pos{}
	var order []byte
	for r, row := range qwertyRows {
		for i := 0; i < len(row.keys); i++ {
			at[row.keys[i]] = pos{float64(r), row.offset + float64(i)}
			order = append(order, row.keys[i])
		}
	}
	nb := make(map[byte]string, len(order))
	for _, k := range order {
		p := at[k]
		var s []byte
		for _, o := range order {
			q := at[o]
			dx := q.x - p.x
			if dx < 0 {
				dx = -dx
			}
			switch q.row - p.row {
			case 0:
				if dx == 1 {
					s = append(s, o)
				}
			case 1, -1:
				if dx < 1 {
					s = append(s, o)
				}
			}
		}
		nb[k] = string(s)
	}
	return nb
}
