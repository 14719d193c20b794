module example.com/humaneval/filter_integers

go 1.22
