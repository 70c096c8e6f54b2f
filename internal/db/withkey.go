package db

// AppendWithKey appends doc, a JSON object, with "YCSB_KEY": key as its
// first member to dst: the document layouts that keep the key inside the
// document. Keys are plain ASCII (workload keys): they are not escaped.
func AppendWithKey(dst, key, doc []byte) []byte {
	dst = append(dst, `{"YCSB_KEY":"`...)
	dst = append(dst, key...)
	dst = append(dst, '"')
	if len(doc) > 2 {
		dst = append(dst, ',')
		return append(dst, doc[1:]...)
	}
	return append(dst, '}')
}
