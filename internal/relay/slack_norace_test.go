//go:build !race

package relay

// slack is how many more allocations the bigger of two sizes may count
// where a count must not grow with the size: a write's vary by one or
// two from run to run, and work done once an entry counts at least 180
// more between the two sizes compared (20 and 200).
const slack = 8
