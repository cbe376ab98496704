package columns

import "github.com/evalobs/evalapi/shared/store"

// MetricPrefix starts the id of every metric column.
const MetricPrefix = "metrics/"

// GroupMetrics is the group label of metric columns.
const GroupMetrics = "Metrics"

// DefaultRollUp is the roll-up of a metric whose scorer config names none.
const DefaultRollUp = "average"

// Metric builds the column of the metric a scorer config produces: a number per record,
// applicable to no step type in particular, bucketed low / medium / high for display.
func Metric(cfg store.ScorerConfig) Column {
	name := cfg.MetricKey()
	rollUp := DefaultRollUp
	switch {
	case cfg.RollUpMethod != nil:
		rollUp = *cfg.RollUpMethod
	case cfg.RollUpConfig != nil && len(cfg.RollUpConfig.RollUpMethods) > 0:
		rollUp = cfg.RollUpConfig.RollUpMethods[0]
	}
	c := Column{
		ID:              MetricPrefix + name,
		Label:           name,
		Description:     "Values of the metric " + name + ".",
		Category:        CategoryMetric,
		GroupLabel:      GroupMetrics,
		DataType:        DataFloatingPoint,
		FilterType:      FilterNumber,
		Filterable:      true,
		Sortable:        true,
		IsOptional:      true,
		ApplicableTypes: []string{},
		RollUpMethod:    &rollUp,
		Threshold: &Threshold{
			Buckets:            []float64{0.33, 0.66},
			DisplayValueLevels: []string{"Low", "Medium", "High"},
		},
	}
	if cfg.OutputType != nil && *cfg.OutputType == "percentage" {
		unit := DataUnitPercentage
		c.DataUnit = &unit
	}
	return c
}

// Catalog is the column catalog of one run: the standard columns, then one metric column per
// scorer of the run's settings. It is read-only once built.
type Catalog struct {
	cols  []Column
	index map[string]int
}

// ForSettings builds the catalog of a run from its metric settings. A second scorer that
// names the same metric adds no second column.
func ForSettings(s store.MetricSettings) *Catalog {
	metrics := make([]Column, 0, len(s.Scorers))
	for _, cfg := range s.Scorers {
		metrics = append(metrics, Metric(cfg))
	}
	return New(metrics...)
}

// New builds a catalog of the standard columns followed by the given metric columns.
func New(metrics ...Column) *Catalog {
	c := &Catalog{cols: Standard(), index: make(map[string]int, len(standard)+len(metrics))}
	for i, col := range c.cols {
		c.index[col.ID] = i
	}
	for _, m := range metrics {
		if _, dup := c.index[m.ID]; dup {
			continue
		}
		c.index[m.ID] = len(c.cols)
		c.cols = append(c.cols, m.clone())
	}
	return c
}

// Columns returns the catalog's columns in order; the caller owns the slice.
func (c *Catalog) Columns() []Column {
	out := make([]Column, len(c.cols))
	for i, col := range c.cols {
		out[i] = col.clone()
	}
	return out
}

// Lookup finds a column of the catalog by id.
func (c *Catalog) Lookup(id string) (Column, bool) {
	i, ok := c.index[id]
	if !ok {
		return Column{}, false
	}
	return c.cols[i].clone(), true
}

// WithEmptiness returns the catalog's columns with is_empty set: true for every column the
// run holds no value in (filled has no entry for it).
func (c *Catalog) WithEmptiness(filled map[string]bool) []Column {
	out := c.Columns()
	for i := range out {
		out[i].IsEmpty = !filled[out[i].ID]
	}
	return out
}
