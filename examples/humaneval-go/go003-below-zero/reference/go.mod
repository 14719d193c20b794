module example.com/humaneval/below_zero

go 1.22
