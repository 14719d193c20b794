module example.com/humaneval/filter_by_substring

go 1.22
