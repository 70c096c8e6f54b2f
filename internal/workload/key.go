package workload

import (
	"math"
	"strconv"
)

// FNV-64 constants as in YCSB's Utils.
const (
	fnvOffsetBasis64 = -3750763034362895579 // 0xCBF29CE484222325 as a Java long
	fnvPrime64       = 1099511628211
)

// FNVHash64 is YCSB's Utils.fnvhash64: FNV-1a over the 8 low-to-high bytes of
// v (with Java's arithmetic right shift), then Math.abs of the result. Like
// Java's Math.abs, it returns a negative number only when the hash is
// MinInt64.
func FNVHash64(v int64) int64 {
	h := int64(fnvOffsetBasis64)
	for range 8 {
		octet := v & 0xff
		v >>= 8
		h ^= octet
		h *= fnvPrime64
	}
	if h < 0 {
		h = -h
	}
	return h
}

// AppendKey appends the YCSB key name of keynum to dst, exactly like
// CoreWorkload.buildKeyName: unless ordered, keynum is replaced by
// FNVHash64(keynum); the result is "user" followed by the decimal number,
// left-padded with zeros to zeropadding digits (the sign counts as a digit).
func AppendKey(dst []byte, keynum int64, ordered bool, zeropadding int) []byte {
	if !ordered {
		keynum = FNVHash64(keynum)
	}
	dst = append(dst, "user"...)
	if zeropadding > 1 { // every number has at least one digit
		for i := decimalLen(keynum); i < zeropadding; i++ {
			dst = append(dst, '0')
		}
	}
	return strconv.AppendInt(dst, keynum, 10)
}

// decimalLen returns len(strconv.FormatInt(v, 10)).
func decimalLen(v int64) int {
	n := 1
	u := uint64(v)
	if v < 0 {
		n++
		u = -u
	}
	for p := uint64(10); u >= p; p *= 10 {
		n++
		if p > math.MaxUint64/10 {
			break
		}
	}
	return n
}
