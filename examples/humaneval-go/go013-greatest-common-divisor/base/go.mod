module example.com/humaneval/greatest_common_divisor

go 1.22
