module example.com/humaneval/rolling_max

go 1.22
