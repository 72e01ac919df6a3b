package retrieval

import (
	"fmt"
	"math"
)

// Matrix is a dense row-major float32 matrix: row i is
// Data[i*Dim : (i+1)*Dim]. Embedding matrices hold one vector per row.
type Matrix struct {
	Rows, Dim int
	Data      []float32
}

// NewMatrix returns a zero matrix with the given shape.
func NewMatrix(rows, dim int) *Matrix {
	return &Matrix{Rows: rows, Dim: dim, Data: make([]float32, rows*dim)}
}

// Row returns row i, sharing storage with m.
func (m *Matrix) Row(i int) []float32 {
	return m.Data[i*m.Dim : (i+1)*m.Dim : (i+1)*m.Dim]
}

// check reports whether m's fields are consistent.
func (m *Matrix) check(name string) error {
	if m == nil {
		return fmt.Errorf("%s matrix is nil", name)
	}
	if m.Rows < 0 || m.Dim < 0 || len(m.Data) != m.Rows*m.Dim {
		return fmt.Errorf("%s matrix is malformed: %d rows x %d dims needs %d values, has %d", name, m.Rows, m.Dim, m.Rows*m.Dim, len(m.Data))
	}
	return nil
}

// CheckFinite returns an error naming the matrix (name) and the first row
// holding a NaN or infinite value, or nil if every value is finite.
func (m *Matrix) CheckFinite(name string) error {
	if err := m.check(name); err != nil {
		return err
	}
	for i, v := range m.Data {
		// An all-ones exponent is ±Inf or NaN.
		if math.Float32bits(v)&0x7f800000 == 0x7f800000 {
			return fmt.Errorf("%s row %d column %d is %v: vectors must be finite", name, i/m.Dim, i%m.Dim, v)
		}
	}
	return nil
}

// Normalize scales every row of m in place to unit L2 norm. Norms are
// accumulated in float64. Rows of all zeros stay zero.
func (m *Matrix) Normalize() {
	if m.Dim == 0 {
		return
	}
	for i := 0; i < m.Rows; i++ {
		r := m.Row(i)
		inv := invNorm(r)
		for j := range r {
			r[j] *= inv
		}
	}
}

// invNorm returns 1/||v|| rounded to float32, or 0 for a zero vector.
func invNorm(v []float32) float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return 0
	}
	return float32(1 / math.Sqrt(s))
}
