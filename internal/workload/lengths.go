package workload

// FieldLengths returns the field length generator (fieldlength,
// minfieldlength, fieldlengthdistribution). It is safe for concurrent use:
// the randomness comes from the caller. Document generators use it with a
// per-key random source so that a document depends on its key alone.
func (w *Workload) FieldLengths() NumberGenerator { return w.fieldLength }
