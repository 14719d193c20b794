module example.com/humaneval/count_distinct_characters

go 1.22
