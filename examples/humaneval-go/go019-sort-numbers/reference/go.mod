module example.com/humaneval/sort_numbers

go 1.22
