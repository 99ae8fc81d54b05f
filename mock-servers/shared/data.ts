/**
 * Fixed vocabularies the fixture seed draws from: people's names, departments, course
 * titles, books, companies. Lists, not generators, so the same seed always yields the
 * same rows and a reader can find a value here that a test relies on.
 */

export const FIRST_NAMES = [
  'Aarav', 'Ananya', 'Vivaan', 'Diya', 'Aditya', 'Ishita', 'Arjun', 'Kavya', 'Rohan', 'Meera',
  'Karthik', 'Priya', 'Siddharth', 'Sneha', 'Nikhil', 'Pooja', 'Rahul', 'Aisha', 'Varun', 'Nandini',
  'Harsh', 'Tanvi', 'Manish', 'Riya', 'Abhinav', 'Shreya', 'Kunal', 'Divya', 'Yash', 'Lakshmi',
  'Farhan', 'Zoya', 'Gaurav', 'Neha', 'Pranav', 'Swati', 'Samuel', 'Grace', 'Imran', 'Fatima',
];

export const LAST_NAMES = [
  'Sharma', 'Iyer', 'Reddy', 'Nair', 'Patel', 'Gupta', 'Menon', 'Rao', 'Das', 'Kulkarni',
  'Singh', 'Chatterjee', 'Joshi', 'Pillai', 'Verma', 'Bose', 'Mehta', 'Khan', 'Fernandes', 'Mishra',
  'Banerjee', 'Krishnan', 'Agarwal', 'Desai', 'Hegde', 'Saxena', 'Thomas', 'Varghese', 'Ghosh', 'Naidu',
];

export interface Department {
  id: string;
  name: string;
  prefix: string;
  building: string;
  /** Twelve course titles: core semesters 1–8, then electives of semesters 5–8. */
  courses: string[];
}

export const DEPARTMENTS: Department[] = [
  {
    id: 'CSE', name: 'Computer Science and Engineering', prefix: 'CS', building: 'Turing Block',
    courses: [
      'Programming Fundamentals', 'Data Structures', 'Discrete Mathematics', 'Algorithms',
      'Operating Systems', 'Database Systems', 'Distributed Systems', 'Compiler Design',
      'Machine Learning', 'Computer Vision', 'Natural Language Processing', 'Cloud Computing',
    ],
  },
  {
    id: 'ECE', name: 'Electronics and Communication Engineering', prefix: 'EC', building: 'Bose Block',
    courses: [
      'Basic Electronics', 'Network Analysis', 'Signals and Systems', 'Analog Circuits',
      'Digital Signal Processing', 'Communication Systems', 'VLSI Design', 'Wireless Networks',
      'Embedded Systems', 'Antenna Theory', 'Internet of Things', 'Radar Engineering',
    ],
  },
  {
    id: 'MECH', name: 'Mechanical Engineering', prefix: 'ME', building: 'Watt Block',
    courses: [
      'Engineering Drawing', 'Engineering Mechanics', 'Thermodynamics', 'Fluid Mechanics',
      'Machine Design', 'Heat Transfer', 'Manufacturing Processes', 'Dynamics of Machinery',
      'Robotics', 'Automobile Engineering', 'Finite Element Analysis', 'Renewable Energy Systems',
    ],
  },
  {
    id: 'CIVIL', name: 'Civil Engineering', prefix: 'CE', building: 'Visvesvaraya Block',
    courses: [
      'Surveying', 'Building Materials', 'Strength of Materials', 'Structural Analysis',
      'Geotechnical Engineering', 'Transportation Engineering', 'Design of Steel Structures',
      'Environmental Engineering', 'Earthquake Engineering', 'Remote Sensing and GIS',
      'Construction Management', 'Water Resources Engineering',
    ],
  },
  {
    id: 'EEE', name: 'Electrical and Electronics Engineering', prefix: 'EE', building: 'Tesla Block',
    courses: [
      'Electrical Circuits', 'Electromagnetic Fields', 'Electrical Machines', 'Control Systems',
      'Power Electronics', 'Power Systems', 'Electric Drives', 'High Voltage Engineering',
      'Smart Grids', 'Electric Vehicles', 'Power System Protection', 'Energy Auditing',
    ],
  },
];

export const SYLLABUS_UNITS = ['Foundations', 'Core techniques', 'Analysis and design', 'Applications', 'Advanced topics'];

export const BOOKS: Array<[title: string, author: string, subject: string]> = [
  ['Introduction to Algorithms', 'Cormen, Leiserson, Rivest, Stein', 'Computer Science'],
  ['Operating System Concepts', 'Silberschatz, Galvin, Gagne', 'Computer Science'],
  ['Database System Concepts', 'Silberschatz, Korth, Sudarshan', 'Computer Science'],
  ['Computer Networks', 'Andrew S. Tanenbaum', 'Computer Science'],
  ['Compilers: Principles, Techniques, and Tools', 'Aho, Lam, Sethi, Ullman', 'Computer Science'],
  ['Pattern Recognition and Machine Learning', 'Christopher Bishop', 'Computer Science'],
  ['Designing Data-Intensive Applications', 'Martin Kleppmann', 'Computer Science'],
  ['Speech and Language Processing', 'Jurafsky, Martin', 'Computer Science'],
  ['Microelectronic Circuits', 'Sedra, Smith', 'Electronics'],
  ['Signals and Systems', 'Oppenheim, Willsky', 'Electronics'],
  ['Digital Signal Processing', 'Proakis, Manolakis', 'Electronics'],
  ['Communication Systems', 'Simon Haykin', 'Electronics'],
  ['CMOS VLSI Design', 'Weste, Harris', 'Electronics'],
  ['Antenna Theory: Analysis and Design', 'Constantine Balanis', 'Electronics'],
  ['Engineering Thermodynamics', 'P. K. Nag', 'Mechanical'],
  ['Fluid Mechanics', 'Frank M. White', 'Mechanical'],
  ['Shigley\'s Mechanical Engineering Design', 'Budynas, Nisbett', 'Mechanical'],
  ['Heat and Mass Transfer', 'Cengel, Ghajar', 'Mechanical'],
  ['Theory of Machines', 'S. S. Rattan', 'Mechanical'],
  ['Introduction to Robotics', 'John J. Craig', 'Mechanical'],
  ['Surveying Vol. 1', 'B. C. Punmia', 'Civil'],
  ['Strength of Materials', 'R. K. Rajput', 'Civil'],
  ['Structural Analysis', 'R. C. Hibbeler', 'Civil'],
  ['Soil Mechanics and Foundations', 'B. C. Punmia', 'Civil'],
  ['Highway Engineering', 'Khanna, Justo', 'Civil'],
  ['Environmental Engineering', 'Peavy, Rowe, Tchobanoglous', 'Civil'],
  ['Electrical Machinery', 'P. S. Bimbhra', 'Electrical'],
  ['Power System Analysis', 'Grainger, Stevenson', 'Electrical'],
  ['Power Electronics', 'Muhammad H. Rashid', 'Electrical'],
  ['Modern Control Engineering', 'Katsuhiko Ogata', 'Electrical'],
  ['Elements of Electromagnetics', 'Matthew Sadiku', 'Electrical'],
  ['Electric Drives', 'G. K. Dubey', 'Electrical'],
  ['Higher Engineering Mathematics', 'B. S. Grewal', 'Mathematics'],
  ['Advanced Engineering Mathematics', 'Erwin Kreyszig', 'Mathematics'],
  ['Linear Algebra and Its Applications', 'Gilbert Strang', 'Mathematics'],
  ['Probability and Statistics for Engineers', 'Walpole, Myers', 'Mathematics'],
  ['Concepts of Physics', 'H. C. Verma', 'Physics'],
  ['Engineering Physics', 'Gaur, Gupta', 'Physics'],
  ['The Pragmatic Programmer', 'Hunt, Thomas', 'Computer Science'],
  ['Clean Code', 'Robert C. Martin', 'Computer Science'],
  ['Quantitative Aptitude', 'R. S. Aggarwal', 'Career'],
  ['Cracking the Coding Interview', 'Gayle Laakmann McDowell', 'Career'],
  ['Engineering Economics', 'Panneerselvam', 'Management'],
  ['Principles of Management', 'Koontz, Weihrich', 'Management'],
  ['Wings of Fire', 'A. P. J. Abdul Kalam', 'General'],
  ['The Design of Everyday Things', 'Don Norman', 'General'],
  ['Sapiens', 'Yuval Noah Harari', 'General'],
  ['A Brief History of Time', 'Stephen Hawking', 'General'],
];

export const COMPANIES: Array<[name: string, sector: string, hq: string]> = [
  ['Nimbus Analytics', 'Data and AI', 'Bengaluru'],
  ['Orbit Semiconductors', 'Semiconductors', 'Hyderabad'],
  ['Kestrel Motors', 'Automotive', 'Pune'],
  ['Granite Infra', 'Construction', 'Mumbai'],
  ['Voltaris Power', 'Energy', 'Chennai'],
  ['Bluefin Software', 'IT Services', 'Bengaluru'],
  ['Quanta Finance Tech', 'FinTech', 'Gurugram'],
  ['Helix Robotics', 'Robotics', 'Chennai'],
  ['Tidewater Consulting', 'Consulting', 'Mumbai'],
  ['Lumen Telecom', 'Telecom', 'Noida'],
  ['Arcadia Cloud', 'Cloud', 'Hyderabad'],
  ['Sahyadri Engineering', 'Heavy Engineering', 'Pune'],
  ['Peregrine Aerospace', 'Aerospace', 'Bengaluru'],
  ['Evergreen Water Systems', 'Environment', 'Ahmedabad'],
  ['Cobalt Grid Solutions', 'Power Systems', 'Kolkata'],
];

export const MESS_MENU: Record<string, Record<string, string>> = {
  Mon: { breakfast: 'Idli, sambar, coconut chutney, tea', lunch: 'Rice, dal tadka, aloo gobi, curd', snacks: 'Samosa, tea', dinner: 'Chapati, paneer butter masala, jeera rice' },
  Tue: { breakfast: 'Poha, banana, coffee', lunch: 'Rice, rajma, bhindi fry, salad', snacks: 'Bread pakora, tea', dinner: 'Chapati, chicken curry / veg kofta, rice' },
  Wed: { breakfast: 'Aloo paratha, curd, tea', lunch: 'Lemon rice, sambar, cabbage poriyal', snacks: 'Biscuits, coffee', dinner: 'Chapati, dal makhani, mix veg, rice' },
  Thu: { breakfast: 'Upma, chutney, tea', lunch: 'Rice, chole, jeera aloo, buttermilk', snacks: 'Vada pav, tea', dinner: 'Veg biryani / egg biryani, raita' },
  Fri: { breakfast: 'Dosa, sambar, chutney, coffee', lunch: 'Rice, dal fry, palak paneer, curd', snacks: 'Sandwich, tea', dinner: 'Chapati, fish curry / mushroom masala, rice' },
  Sat: { breakfast: 'Puri bhaji, tea', lunch: 'Khichdi, kadhi, papad', snacks: 'Pakora, tea', dinner: 'Fried rice, manchurian, soup' },
  Sun: { breakfast: 'Chole bhature, lassi', lunch: 'Special thali, gulab jamun', snacks: 'Cake, coffee', dinner: 'Chapati, mutton curry / paneer tikka masala, rice' },
};

export const HOSTEL_BLOCKS: Array<[id: string, name: string]> = [
  ['ARV', 'Aravali'], ['NLG', 'Nilgiri'], ['SHV', 'Shivalik'], ['VND', 'Vindhya'],
];
