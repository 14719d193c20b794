module example.com/humaneval/mean_absolute_deviation

go 1.22
