package humaneval

// Find how many times a given substring can be found in the original string. Count overlaping cases.
// >>> HowManyTimes(”, 'a')
// 0
// >>> HowManyTimes('aaa', 'a')
// 3
// >>> HowManyTimes('aaaa', 'aa')
// 3
func HowManyTimes(str string, substring string) int {
	panic("not implemented")
}
