package perturb

import "fmt"

// The paper's attack at rate 0.5 on a four-token query: the third token
// moved by 5 and [SEP] (102) by 7, to an id that is no longer special.
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
	// [CLS] t2054 t2008 t109
	// 2 of 4 changed
}
