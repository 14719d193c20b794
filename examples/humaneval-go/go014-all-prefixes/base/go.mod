module example.com/humaneval/all_prefixes

go 1.22
