module example.com/humaneval/how_many_times

go 1.22
