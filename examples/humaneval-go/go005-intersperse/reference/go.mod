module example.com/humaneval/intersperse

go 1.22
