package perturb

import "fmt"

// The paper's attack at rate 0.5 on a four-token query: the second token
// moved by 4 and [SEP] (102) by 6, to an id that is no longer special.
func ExampleIDs() {
	v := fakeVocab{size: 30522}
	res, err := IDs(Config{Mode: IDShift, Rate: 0.5, Seed: 1}, "q1", []int32{101, 2054, 2003, 102}, v)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Decoded)
	fmt.Println(res.PerturbedDecoded)
	fmt.Println(res.Changed, "of", res.Considered, "changed")
	// Output:
	// [CLS] t2054 t2003 [SEP]
	// [CLS] t2058 t2003 t108
	// 2 of 4 changed
}
