// Package columns is the catalog of trace columns (specification §2.11): the standard columns
// every run has, and one metric column per scorer of a run's metric settings. Operation 11
// lists it; metrics search validates its filters and group_by against it. It is one Go value
// with lookup helpers, so both read the same truth.
package columns

import "slices"

// Category of a column.
type Category string

const (
	CategoryStandard Category = "standard"
	CategoryMetric   Category = "metric"
)

// DataType is what a column's values are.
type DataType string

const (
	DataText          DataType = "text"
	DataTimestamp     DataType = "timestamp"
	DataStringList    DataType = "string_list"
	DataInteger       DataType = "integer"
	DataUUID          DataType = "uuid"
	DataBoolean       DataType = "boolean"
	DataFloatingPoint DataType = "floating_point"
)

// FilterType is the kind of metrics-search filter that applies to a column; it equals the
// filter's `type`.
type FilterType string

const (
	FilterText       FilterType = "text"
	FilterDate       FilterType = "date"
	FilterCollection FilterType = "collection"
	FilterNumber     FilterType = "number"
	FilterID         FilterType = "id"
	FilterBoolean    FilterType = "boolean"
)

// DataUnitPercentage marks a metric column whose values are fractions shown as percentages.
const DataUnitPercentage = "percentage"

// Threshold is how a metric column's values are bucketed for display.
type Threshold struct {
	Buckets            []float64 `json:"buckets"`
	DisplayValueLevels []string  `json:"display_value_levels"`
	Inverted           bool      `json:"inverted"`
}

// Column is one column definition as operation 11 returns it. Every key is always present;
// the optional ones (data_unit, allowed_values, roll_up_method, threshold) are null where
// they do not apply, as the original service's response model writes them.
type Column struct {
	ID              string     `json:"id"`
	Label           string     `json:"label"`
	Description     string     `json:"description"`
	Category        Category   `json:"category"`
	GroupLabel      string     `json:"group_label"`
	DataType        DataType   `json:"data_type"`
	DataUnit        *string    `json:"data_unit"`
	FilterType      FilterType `json:"filter_type"`
	Filterable      bool       `json:"filterable"`
	Sortable        bool       `json:"sortable"`
	MultiValued     bool       `json:"multi_valued"`
	IsEmpty         bool       `json:"is_empty"`
	IsOptional      bool       `json:"is_optional"`
	ApplicableTypes []string   `json:"applicable_types"`
	AllowedValues   []string   `json:"allowed_values"`
	RollUpMethod    *string    `json:"roll_up_method"`
	Threshold       *Threshold `json:"threshold"`
}

// Accepts reports whether a metrics-search filter of type ft may name this column.
func (c Column) Accepts(ft FilterType) bool { return c.Filterable && c.FilterType == ft }

// clone returns c with its own copies of every slice and pointer, so that callers may change
// what they get without touching the catalog.
func (c Column) clone() Column {
	c.ApplicableTypes = slices.Clone(c.ApplicableTypes)
	if c.ApplicableTypes == nil {
		c.ApplicableTypes = []string{}
	}
	c.AllowedValues = slices.Clone(c.AllowedValues)
	if c.DataUnit != nil {
		u := *c.DataUnit
		c.DataUnit = &u
	}
	if c.RollUpMethod != nil {
		m := *c.RollUpMethod
		c.RollUpMethod = &m
	}
	if c.Threshold != nil {
		th := *c.Threshold
		th.Buckets = slices.Clone(th.Buckets)
		th.DisplayValueLevels = slices.Clone(th.DisplayValueLevels)
		c.Threshold = &th
	}
	return c
}
